"""Kernel tests, by concept (a package, so that its conftest and helpers keep their own names)."""
