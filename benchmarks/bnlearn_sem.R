# bnlearn's structural EM on one table, for bench_missing.py (issue 33's peer run).
#
# Usage: Rscript bnlearn_sem.R TABLE.csv LEVELS.tsv MAX_ITER COMPLETE.csv
#   TABLE.csv     the blanked table, a header of names, NA at blank cells
#   LEVELS.tsv    one line per variable: its name, then its states, tab-separated
#                 (the network's states, so that every variable keeps its arity)
#   COMPLETE.csv  the same rows before blanking
# Prints "version V", "seconds S" (the structural.em call only, elapsed), "complete_seconds C" (bnlearn's hill
# climbing on the complete rows, same score: the time structural EM is measured against) and one
# "arc<TAB>FROM<TAB>TO" line per arc of structural EM's network.
#
# Settings as bench_missing.py's own hill climbing: BDeu with imaginary sample size 1 (bnlearn's "bde"),
# the tables fitted by Bayesian estimation with the same prior, the blank cells imputed by bnlearn's
# default for discrete data ("bayes-lw": each row's most probable completion by likelihood weighting).
suppressPackageStartupMessages(library(bnlearn))
args = commandArgs(trailingOnly = TRUE)
levels = strsplit(readLines(args[2], warn = FALSE), "\t")
read.table = function(path) {
  table = read.csv(path, colClasses = "character", na.strings = "NA", check.names = FALSE)
  for (line in levels) table[[line[1]]] = factor(table[[line[1]]], levels = line[-1])
  table
}
set.seed(1)  # its imputation draws (likelihood weighting): the same run each time
table = read.table(args[1])
complete = read.table(args[4])
complete.elapsed = system.time(hc(complete, score = "bde", iss = 1))[["elapsed"]]
elapsed = system.time(learned <- structural.em(table, maximize = "hc",
    maximize.args = list(score = "bde", iss = 1), fit = "bayes", fit.args = list(iss = 1),
    impute = "bayes-lw", max.iter = as.integer(args[3])))[["elapsed"]]
cat("version", as.character(packageVersion("bnlearn")), "\n")
cat("seconds", elapsed, "\n")
cat("complete_seconds", complete.elapsed, "\n")
found = arcs(learned)
for (i in seq_len(nrow(found))) cat(paste("arc", found[i, 1], found[i, 2], sep = "\t"), "\n", sep = "")
