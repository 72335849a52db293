"""Integrators: backward Euler Newton step, static equilibrium, and the preconditioned CG they share."""
