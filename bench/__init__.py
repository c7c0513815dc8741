"""Benchmarks and load tests (see README, "Benchmarks"); not part of the site."""
