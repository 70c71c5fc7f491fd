"""Compiled game kernels (numba). One module per game; nothing here imports gymnasium or pettingzoo."""
