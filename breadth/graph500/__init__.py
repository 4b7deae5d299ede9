"""The Graph500 benchmark: validation, statistics, the benchmark driver and its report."""
from .benchmark import Graph500Config, Graph500Result, format_report, run_benchmark, search_keys
from .engine import Engine, LocalEngine
from .stats import statistics, teps_statistics
from .validate import ValidationReport, validate

__all__ = ["Engine", "Graph500Config", "Graph500Result", "LocalEngine", "ValidationReport", "format_report",
           "run_benchmark", "search_keys", "statistics", "teps_statistics", "validate"]
