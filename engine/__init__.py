"""Zerosum engine: UCI -> controller -> search -> evaluator, over the network contract."""
