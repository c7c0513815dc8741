"""Benchmarks and load tests (see docs/benchmarks.md); not part of the site."""
