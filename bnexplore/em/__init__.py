"""Learning from incomplete data: expected counts, parameter EM, completions and imputation."""
