# bnlearn beside bnexplore in the benchmarks (harness.bnlearn runs it through Rscript).
#
# Usage: Rscript bnlearn.R MODE LEVELS.tsv TABLE.csv [COMPLETE.csv MAX_ITER]
#   MODE          "hc": hill climbing on TABLE; "sem": structural EM on TABLE (blank cells as NA), and hill
#                 climbing on COMPLETE (the same rows before blanking: the time structural EM is measured
#                 against), at most MAX_ITER iterations
#   LEVELS.tsv    one line per variable: its name, then its states, tab-separated (every state, seen or not,
#                 so that each variable keeps its arity)
#   TABLE.csv     a header of names, one row per sample, NA at blank cells
# Prints "version V", "seconds S" (the learning call alone, elapsed), in "hc" mode "score B" (bnlearn's own
# BDeu of the network learned, full precision), in "sem" mode "complete_seconds C", and one
# "arc<TAB>FROM<TAB>TO" line per arc of the network learned.
#
# Settings as bnexplore's own searches in the benchmarks: BDeu with imaginary sample size 1 (bnlearn's "bde"),
# from the empty graph; structural EM fits its tables by Bayesian estimation with the same prior and imputes by
# bnlearn's default for discrete data ("bayes-lw": each row's most probable completion, likelihood weighting).
suppressPackageStartupMessages(library(bnlearn))
args = commandArgs(trailingOnly = TRUE)
levels = strsplit(readLines(args[2], warn = FALSE), "\t")
read.table = function(path) {
  table = read.csv(path, colClasses = "character", na.strings = "NA", check.names = FALSE)
  for (line in levels) table[[line[1]]] = factor(table[[line[1]]], levels = line[-1])
  table
}
set.seed(1)  # structural EM's imputation draws (likelihood weighting): the same run each time
table = read.table(args[3])
if (args[1] == "hc") {
  elapsed = system.time(learned <- hc(table, score = "bde", iss = 1))[["elapsed"]]
} else {
  complete = read.table(args[4])
  complete.elapsed = system.time(hc(complete, score = "bde", iss = 1))[["elapsed"]]
  elapsed = system.time(learned <- structural.em(table, maximize = "hc",
      maximize.args = list(score = "bde", iss = 1), fit = "bayes", fit.args = list(iss = 1),
      impute = "bayes-lw", max.iter = as.integer(args[5])))[["elapsed"]]
}
cat("version", as.character(packageVersion("bnlearn")), "\n")
cat("seconds", elapsed, "\n")
if (args[1] == "hc") cat("score", format(score(learned, table, type = "bde", iss = 1), digits = 17), "\n")
if (args[1] == "sem") cat("complete_seconds", complete.elapsed, "\n")
found = arcs(learned)
for (i in seq_len(nrow(found))) cat(paste("arc", found[i, 1], found[i, 2], sep = "\t"), "\n", sep = "")
