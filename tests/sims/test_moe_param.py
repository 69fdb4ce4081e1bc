"""`jaxtheory.sims.moe.param`: the per-layer tables against the width exponents of arXiv 2605.14200
(fitted numerically over widths), the structural MSSP changes, and the per-label optax
transform against a hand-written per-layer SGD / Adam."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.sims.moe import param as P

# The width exponents n^k of arXiv 2605.14200's per-layer table (as the authors' code
# implements it), typed again independently of MUP_TABLE:
# (init std, SGD LR, Adam LR, Adam eps) exponents per layer; None = zero init.
EXPECTED = {
    "I": {
        "W_in": (0, 1, 0, -1),
        "Q": (-1, -1, -1, 0),
        "W1": (-0.5, 0, -1, -1),
        "W2": (-0.5, 0, -1, -1),
        "W_out": (None, -1, -1, 0),
    },
    "II": {
        "W_in": (0, 1, 0, -1),
        "Q": (-0.5, 0, -1, -1),
        "W1": (-0.5, 0, -1, -1),
        "W2": (0, 2, 0, -2),
        "W_out": (None, -1, -1, 0),
    },
    "III": {
        "W_in": (0, 1, 0, -1),
        "Q": (-0.5, 0, -1, -1),
        "W1": (-0.5, 1, -1, -2),
        "W2": (-0.5, 1, -1, -2),
        "W_out": (None, -1, -1, 0),
    },
}
MSSP_INIT = {("I", "Q"): None, ("II", "W2"): 0.5}  # MSSP init exponents that differ from μP


def dims_at(regime, n):
    """The code's base scaling (N_BASE = 128, M = N/16, N_e = 16 in regime II; M = 8 in I)."""
    if regime == "I":
        return {"d_in": 32, "N": n, "N_e": n, "M": 8, "K": 8}
    if regime == "II":
        return {"d_in": 32, "N": n, "N_e": 16, "M": n // 16, "K": n // 16}
    return {"d_in": 32, "N": n, "N_e": n, "M": n // 16, "K": n // 16}


def slope(ns, vals):
    return float(np.polyfit(np.log(ns), np.log(vals), 1)[0])


@pytest.mark.parametrize("regime", P.REGIMES)
@pytest.mark.parametrize("rule", ["mup", "mssp", "mup_global_eps"])
@pytest.mark.parametrize("opt", P.OPTIMIZERS)
def test_table_reproduces_the_papers_exponents(regime, rule, opt):
    ns = np.array([128, 256, 512, 1024, 2048])
    pzs = [P.parameterization(rule, opt, regime, dims_at(regime, int(n))) for n in ns]
    for i, layer in enumerate(P.LAYERS):
        e_init, e_sgd, e_adam, e_eps = EXPECTED[regime][layer]
        if rule == "mssp":
            e_init = MSSP_INIT.get((regime, layer), e_init)
        init = np.array([pz.init_std[i] for pz in pzs])
        if e_init is None:
            assert np.all(init == 0.0), (layer, init)
        else:
            assert slope(ns, init) == pytest.approx(e_init, abs=1e-9), layer
        lr = np.array([pz.lr_mult[i] for pz in pzs])
        assert slope(ns, lr) == pytest.approx(e_sgd if opt == "sgd" else e_adam, abs=1e-9), layer
        eps = np.array([pz.eps_mult[i] for pz in pzs])
        want_eps = 0 if (opt == "sgd" or rule == "mup_global_eps") else e_eps
        assert slope(ns, eps) == pytest.approx(want_eps, abs=1e-9), layer
        tied = rule == "mssp" and regime == "III"
        assert all(pz.tie_experts == tied for pz in pzs)


def test_exact_values_of_a_few_entries():
    d = {"d_in": 32, "N": 256, "N_e": 16, "M": 16, "K": 16}
    sgd = P.parameterization("mup", "sgd", "II", d).per_layer("lr_mult")
    assert sgd == {"W_in": 256.0, "Q": 16 / 256, "W1": 16 / 256, "W2": 16 * 256, "W_out": 1 / 256}
    adam = P.parameterization("mup", "adam", "II", d)
    assert adam.per_layer("lr_mult") == {
        "W_in": 1 / 32,
        "Q": 1 / 256,
        "W1": 1 / 256,
        "W2": 1 / 16,
        "W_out": 1 / 256,
    }
    assert adam.per_layer("eps_mult")["W2"] == pytest.approx(1 / (256 * 16))
    mssp = P.parameterization("mssp", "adam", "II", d).per_layer("init_std")
    mup = adam.per_layer("init_std")
    assert mssp["W2"] == pytest.approx(mup["W2"] * 4.0)  # √M = 4
    assert {k: v for k, v in mssp.items() if k != "W2"} == {k: v for k, v in mup.items() if k != "W2"}
    assert P.parameterization("mssp", "sgd", "I", dims_at("I", 64)).per_layer("init_std")["Q"] == 0


def test_sp_and_ntp_rules():
    d = dims_at("III", 256)
    sp = P.parameterization("sp", "adam", "III", d)
    assert sp.per_layer("init_std")["W_out"] == pytest.approx(256**-0.5)
    assert set(sp.lr_mult) == {1 / 256} and set(sp.eps_mult) == {1.0}
    # NTP: multiplier a = fan_in^-1/2 on unit weights ⇔ SGD lr a², Adam lr a, Adam eps 1/a
    fan = {"W_in": 32, "Q": 256, "W1": 256, "W2": 256, "W_out": 256}
    ntp_s = P.parameterization("ntp", "sgd", "III", d).per_layer("lr_mult")
    ntp_a = P.parameterization("ntp", "adam", "III", d)
    for layer, f in fan.items():
        assert ntp_s[layer] == pytest.approx(1 / f)
        assert ntp_a.per_layer("lr_mult")[layer] == pytest.approx(f**-0.5)
        assert ntp_a.per_layer("eps_mult")[layer] == pytest.approx(f**0.5)


def test_ntp_adam_equals_multiplier_form():
    """One Adam step of the multiplier form (w ~ N(0,1), forward a·w, flat lr, eps) equals
    the multiplier-free NTP rule on W = a·w (lr·a, eps/a)."""
    rng = np.random.default_rng(0)
    a = 0.125
    w = jnp.asarray(rng.normal(size=(4, 3)), jnp.float32)
    x = jnp.asarray(rng.normal(size=(5, 4)), jnp.float32)
    loss = lambda W: jnp.sum(jnp.tanh(x @ W) ** 2)  # noqa: E731
    lr, eps = 0.01, 1e-3
    tx = optax.adam(lr, eps=eps)
    gw = jax.grad(lambda w: loss(a * w))(w)
    uw, _ = tx.update(gw, tx.init(w))
    W_next_mult = a * (w + uw)
    tx2 = optax.adam(lr * a, eps=eps / a)
    W = a * w
    uW, _ = tx2.update(jax.grad(loss)(W), tx2.init(W))
    np.testing.assert_allclose(W + uW, W_next_mult, rtol=1e-5, atol=1e-7)


def test_tied_experts_and_zero_layers_at_init():
    pz = P.parameterization("mssp", "adam", "III", {"d_in": 8, **P.moe_dims("III", 32)})
    p = jax.jit(lambda k: P.init_params(pz, 4, k))(jax.random.key(1))
    assert p["W1"].shape == (4, 32, 32)
    for k in ("W1", "W2"):
        assert bool(jnp.all(p[k] == p[k][:1]))
    assert float(jnp.abs(p["W_out"]).max()) == 0.0
    # the same through traced numbers (the vmapped-rules path)
    nums = P.stack_numbers(
        [P.parameterization(r, "adam", "III", pz.dims and dict(pz.dims)) for r in ("mup", "mssp")]
    )
    ps = jax.jit(jax.vmap(lambda n: P.init_params(pz, 4, jax.random.key(1), numbers=n)))(nums)
    # elementwise, a normal draw times a std: a batch of 2 with a traced std against one run
    # with a compile-time std are two programs, which may round the draw's polynomial or the
    # product differently (FMA contraction, constant folding): a few float32 epsilons
    np.testing.assert_allclose(ps["W1"][1], p["W1"], rtol=4 * np.finfo(np.float32).eps, atol=0)
    assert not bool(jnp.all(ps["W1"][0] == ps["W1"][0][:1]))
    std = float(jnp.std(ps["W1"][0]))
    assert std == pytest.approx(32**-0.5, rel=0.05)


def _tiny_problem():
    pz = P.parameterization("mup", "adam", "II", {"d_in": 3, **P.moe_dims("II", 16, m_ratio=4, n_e_fixed=2)})
    p = P.init_params(pz, 2, jax.random.key(0))
    p["W_out"] = 0.1 * jnp.ones_like(p["W_out"])
    rng = np.random.default_rng(1)
    xs = [jnp.asarray(rng.normal(size=(6, 3)), jnp.float32) for _ in range(4)]

    def loss(p, x):
        h = jax.nn.gelu(x @ p["W_in"], approximate=False)
        g = jax.nn.sigmoid(h @ p["Q"]) * (8 / 4)
        e = jax.nn.gelu(jnp.einsum("bn,mne->bme", h, p["W1"]), approximate=False)
        agg = jnp.einsum("bm,bme,men->bn", g, e, p["W2"])
        return jnp.mean((agg @ p["W_out"] - 1.0) ** 2)

    return pz, p, xs, loss


@pytest.mark.parametrize("opt", ["sgd", "adam"])
def test_per_label_transform_equals_handwritten_per_layer(opt):
    pz, p, xs, loss = _tiny_problem()
    pz = P.parameterization("mup", opt, "II", dict(pz.dims))
    lr, eps = 0.05, 1e-3
    tx = P.moe_optimizer(pz, lr, eps=eps)
    state = tx.init(p)
    grad = jax.jit(jax.grad(loss))
    update = jax.jit(tx.update)
    q = dict(p)
    lrs, epss = pz.per_layer("lr_mult"), pz.per_layer("eps_mult")
    m = {k: jnp.zeros_like(v) for k, v in p.items()}
    v = {k: jnp.zeros_like(v) for k, v in p.items()}
    for t, x in enumerate(xs, start=1):
        u, state = update(grad(p, x), state, p)
        p = optax.apply_updates(p, u)
        g = grad(q, x)
        for k in q:  # hand-written per-layer SGD / Adam (b1 = 0.9, b2 = 0.999)
            if opt == "sgd":
                q[k] = q[k] - lr * lrs[k] * g[k]
            else:
                m[k] = 0.9 * m[k] + 0.1 * g[k]
                v[k] = 0.999 * v[k] + 0.001 * g[k] ** 2
                mh, vh = m[k] / (1 - 0.9**t), v[k] / (1 - 0.999**t)
                q[k] = q[k] - lr * lrs[k] * mh / (jnp.sqrt(vh) + eps * epss[k])
    for k in p:  # float32: Adam's division by sqrt(v) + tiny eps amplifies round-off
        np.testing.assert_allclose(p[k], q[k], rtol=2e-5, atol=2e-6, err_msg=k)


def test_traced_learning_rate_and_numbers():
    pz, p, xs, loss = _tiny_problem()
    g = jax.grad(loss)(p, xs[0])

    def step(lr, nums):
        tx = P.moe_optimizer(pz, lr, numbers=nums)
        return tx.update(g, tx.init(p), p)[0]["W2"]

    lrs = jnp.array([0.1, 0.2])
    u = jax.jit(jax.vmap(step, in_axes=(0, None)))(lrs, pz.numbers())
    np.testing.assert_allclose(u[1], 2 * u[0], rtol=1e-6)
    direct = P.moe_optimizer(pz, 0.1).update(g, P.moe_optimizer(pz, 0.1).init(p), p)[0]["W2"]
    np.testing.assert_allclose(u[0], direct, rtol=1e-6)


def test_bad_names_raise():
    with pytest.raises(ValueError):
        P.layer_rules("nope", "adam", "I")
    with pytest.raises(ValueError):
        P.moe_dims("IV", 32)


# The authors' tuned base-width multipliers (their tuned_multipliers.py), one table row each (columns:
# base LR | init×, lr_in, lr_out, lr_router, lr_W1, lr_W2 | best val top-5), typed here
# independently of TUNED_MULTIPLIERS, with the (optimizer, regime, rules) each row is for.
TUNED_ROWS = [
    (
        "| SGD regime I (`fixed_E_mup_multfree`) | 0.04 | 1, 0.016, 256, 1, 1, 1 | 0.300 |",
        "sgd",
        "I",
        ("mup", "mssp"),
    ),
    (
        "| SGD regime II μP (`…_stdinit`, 1/N out) | 0.01 | 0.25, 1/256, 2^20, 16, 64, 1/256 | 0.296 |",
        "sgd",
        "II",
        ("mup",),
    ),
    (
        "| SGD regime II MSSP (`…_ours`) | 0.01 | 0.25, 1/64, 65536, 4, 1, 1/64 | 0.3135 |",
        "sgd",
        "II",
        ("mssp",),
    ),
    (
        "| SGD regime III (no shared, 1/N out) | 0.04 | 1, 1/16, 4, 4096, 1/4, 1/16 | 0.291 |",
        "sgd",
        "III",
        ("mup", "mssp"),
    ),
    (
        "| Adam regime III (no shared, 1/N out) | 0.16 | 0.25, 1, 4, 1, 4, 1/16 | 0.3265 |",
        "adam",
        "III",
        ("mup", "mssp"),
    ),
    ("| Adam regime II μP (1/N out) | 0.16 | 0.25, 4, 64, 1/4, 1/16, 1/16 | 0.317 |", "adam", "II", ("mup",)),
    ("| Adam regime II MSSP | 0.16 | 0.25, 4, 4, 4, 1/4, 1/256 | 0.3267 |", "adam", "II", ("mssp",)),
    ("| Adam regime I | 0.16 | 1, 4, 1, 1, 1, 1 | 0.293 |", "adam", "I", ("mup", "mssp")),
]


def _number(tok):
    tok = tok.strip()
    if "/" in tok:
        a, b = tok.split("/")
        return float(a) / float(b)
    if "^" in tok:
        a, b = tok.split("^")
        return float(a) ** float(b)
    return float(tok)


def _parse_row(line):
    cols = [c.strip() for c in line.strip().strip("|").split("|")]
    base_lr = _number(cols[1])
    init, lr_in, lr_out, lr_router, lr_w1, lr_w2 = (_number(t) for t in cols[2].split(","))
    return (
        base_lr,
        init,
        {"W_in": lr_in, "W_out": lr_out, "Q": lr_router, "W1": lr_w1, "W2": lr_w2},
        _number(cols[3]),
    )


def test_tuned_multipliers_are_the_authors_table():
    covered = set()
    for line, opt, regime, rules in TUNED_ROWS:
        base_lr, init, lrs, top5 = _parse_row(line)
        for rule in rules:
            tm = P.tuned_multipliers(rule, opt, regime)
            covered.add((opt, regime, rule))
            assert tm.base_lr == base_lr and tm.init == init and tm.best_val_top5 == top5, line
            assert tm.per_layer() == lrs, line  # exact: the same decimal/binary fractions
    assert covered == set(P.TUNED_MULTIPLIERS)  # every row of the table, nothing else


@pytest.mark.parametrize("key", sorted(P.TUNED_MULTIPLIERS))
def test_tuned_parameterization_applies_the_row(key):
    opt, regime, rule = key
    d = dims_at(regime, 256)
    plain = P.parameterization(rule, opt, regime, d)
    tuned = P.parameterization(rule, opt, regime, d, tuned=True)
    tm = P.TUNED_MULTIPLIERS[key]
    assert plain.base_lr == P.BASE_LR[opt] and tuned.base_lr == tm.base_lr and tuned.tuned
    np.testing.assert_allclose(tuned.init_std, np.array(plain.init_std) * tm.init, rtol=1e-15)
    np.testing.assert_allclose(tuned.lr_mult, np.array(plain.lr_mult) * np.array(tm.lr), rtol=1e-15)
    assert tuned.eps_mult == plain.eps_mult and tuned.tie_experts == plain.tie_experts
    assert float(tuned.numbers().base_lr) == pytest.approx(tm.base_lr, rel=1e-7)  # float32


def test_tuned_update_is_the_hand_computed_sgd_step():
    # one SGD step: ΔW_ℓ = -η_base · lr_scale · table_ℓ · tuned_ℓ · g_ℓ (authors' moe_training.py)
    from jaxtheory.sims.moe import train as tr

    spec = tr.MoESpec(width=16, regime="II", optimizer="sgd", rules=("mup",), tuned=True)
    pz = tr.spec_parameterization(spec)
    p = P.init_params(pz, 4, jax.random.key(0))
    g = jax.tree.map(jnp.ones_like, p)
    tx = P.moe_optimizer(pz, pz.base_lr * 0.5, numbers=pz.numbers())
    u, _ = tx.update(g, tx.init(p), p)
    tm = P.tuned_multipliers("mup", "sgd", "II")
    for i, layer in enumerate(P.LAYERS):
        want = -0.01 * 0.5 * P.parameterization("mup", "sgd", "II", tr.spec_dims(spec)).lr_mult[i] * tm.lr[i]
        np.testing.assert_allclose(u[layer], want, rtol=1e-6, err_msg=layer)  # float32


def test_tuned_needs_an_authors_rule():
    with pytest.raises(ValueError, match="no tuned multipliers"):
        P.parameterization("sp", "adam", "I", dims_at("I", 128), tuned=True)
