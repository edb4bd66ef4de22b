"""Measuring the verifier: FEVER batch runs (``fever_run``, ``batch``, ``run_log``), datasets and splits
(``datasets``), metrics (``metrics``, ``run_metrics``), the HTML report (``report``), memory comparisons
and the given-evidence judge used by the benchmarks."""
