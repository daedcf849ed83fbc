"""Benchmarks, the tournament and the play model's fitting: the CLI's long jobs, apart from the product."""
