"""Game simulators: synthetic argument trees and debate protocols (prover–estimator debate,
arXiv 2506.13609)."""
