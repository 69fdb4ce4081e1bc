"""Simulators: pure ``run(spec, params, key) -> metrics`` functions, one subpackage per paper family."""
