"""Matrix-manifold simulators: fixed-rank completion, subspace learning and SPD estimation
(intrinsic Muon, arXiv 2605.09238) and deep linear networks (Schatten-p SMuon, arXiv 2605.19781)."""
