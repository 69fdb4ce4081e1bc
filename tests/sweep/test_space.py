"""The sweep space: axes, flattening, bad input and the --set parser."""

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaxtheory.sweep import (
    Space,
    SpaceError,
    categorical,
    lin,
    log,
    loguniform,
    parse_axis,
    static,
    uniform,
    values,
    zipped,
)


@dataclasses.dataclass(frozen=True)
class Spec:
    dim: int = 4
    steps: int = 10


PARAMS = {"lr": 0.1, "momentum": 0.0, "noise": 1.0}


def test_log_axis_is_spelled_on_values():
    ax = log(1e-4, 1e-1, num=4)
    np.testing.assert_allclose(ax.resolve(), [1e-4, 1e-3, 1e-2, 1e-1], rtol=1e-12)
    np.testing.assert_allclose(lin(0, 1, 3).resolve(), [0, 0.5, 1])


def test_random_axes_are_seeded_and_in_range():
    a = loguniform(1e-4, 1e-1, count=200, seed=3).resolve()
    assert a == loguniform(1e-4, 1e-1, count=200, seed=3).resolve()
    assert a != loguniform(1e-4, 1e-1, count=200, seed=4).resolve()
    assert min(a) >= 1e-4 and max(a) < 1e-1
    # log-uniform: the log of the draws is uniform, so about half lie below the geometric mean
    assert 0.4 < np.mean(np.array(a) < np.sqrt(1e-4 * 1e-1)) < 0.6
    u = uniform(-1, 1, count=100, seed=0).resolve()
    assert -1 <= min(u) and max(u) < 1


def test_flattening_static_dynamic_zipped_and_seeds():
    space = Space(
        lr=log(0.01, 0.1, num=2),
        pair=zipped(momentum=[0.0, 0.9], noise=[1.0, 2.0]),
        dim=static(2, 4),
        seeds=3,
    )
    b = space.bind(Spec(), PARAMS)
    assert list(b.static_axes) == ["dim"]
    assert b.static_groups() == [{"dim": 2}, {"dim": 4}]
    t = b.dynamic_table()
    np.testing.assert_allclose(t["lr"], [0.01, 0.01, 0.1, 0.1])
    np.testing.assert_allclose(t["momentum"], [0.0, 0.9, 0.0, 0.9])
    np.testing.assert_allclose(t["noise"], [1.0, 2.0, 1.0, 2.0])
    assert b.num_configs == 4 and b.dynamic_shape == (2, 2)
    assert space.shape == {"lr": 2, "pair": 2, "dim": 2, "seed": 3}


def test_static_is_inferred_from_spec_fields():
    b = Space(steps=[5, 10], lr=[0.1]).bind(Spec(), PARAMS)
    assert list(b.static_axes) == ["steps"] and list(b.dynamic_axes) == ["lr"]


BAD_SPACES = [
    (lambda: Space(lr=values()), "axis 'lr' is empty"),
    (lambda: Space(lr=[]), "axis 'lr' is empty"),
    (lambda: Space(lr=log(0.0, 1.0, num=4)), "axis 'lr': a log axis needs positive bounds"),
    (lambda: Space(lr=log(-1e-3, 1.0, num=4)), "axis 'lr': a log axis needs positive bounds"),
    (lambda: Space(lr=loguniform(0.0, 1.0, count=4)), "axis 'lr': a log-uniform axis needs positive"),
    (lambda: Space(lr=log(1e-3, 1.0, num=0)), "axis 'lr': num must be a positive integer"),
    (lambda: Space(lr=uniform(1.0, 1.0, count=3)), "axis 'lr': needs low < high"),
    (lambda: Space(lr=[0.1], seeds=0), "seeds must be a positive integer"),
    (lambda: Space(lr=[0.1], seeds=2.5), "seeds must be a positive integer"),
    (lambda: Space(lr=[0.1], p=zipped(lr=[0.2])), "axis name 'lr' is used twice"),
    (lambda: Space(p=zipped(a=[1, 2], b=[1])), "axis 'p': zipped members must have equal lengths"),
    (lambda: Space(lr=[float("nan")]), "axis 'lr': value nan is not finite"),
    (lambda: Space(lr=[[0.1, 0.2]]), "axis 'lr': value [0.1, 0.2] is not a scalar"),
    (lambda: Space(seed=[1, 2]), "axis name 'seed' is reserved"),
    (lambda: Space(method=["a"]), "axis name 'method' is a keyword of xarray's sel()"),
    (lambda: Space(p=zipped(tolerance=[1.0])), "axis name 'tolerance' is a keyword of xarray's sel()"),
]


@pytest.mark.parametrize("make,message", BAD_SPACES)
def test_bad_space_fails_with_a_clear_message(make, message):
    with pytest.raises(SpaceError) as e:
        make()
    assert message in str(e.value)


def test_unknown_parameter_and_misplaced_static_fail_on_bind():
    with pytest.raises(SpaceError, match="axis 'lrr' is not a parameter of the run function"):
        Space(lrr=[0.1]).bind(Spec(), PARAMS)
    with pytest.raises(SpaceError, match="axis 'lr' is declared static but 'lr' is a parameter"):
        Space(lr=static(0.1, 0.2)).bind(Spec(), PARAMS)
    with pytest.raises(SpaceError, match="dynamic values must be numbers"):
        Space(lr=["adam"]).bind(Spec(), PARAMS)


def test_static_values_must_hash_and_may_be_tuples():
    with pytest.raises(SpaceError, match=r"axis 'shape': static value \[2, 3\] is unhashable"):
        Space(shape=static([2, 3], [4, 5]))
    b = Space(shape=static((2, 3), (4, 5))).bind(_TupleSpec(), {})
    assert b.static_groups() == [{"shape": (2, 3)}, {"shape": (4, 5)}]
    with pytest.raises(SpaceError, match="not a scalar"):
        Space(lr=values((0.1, 0.2), (0.3, 0.4)))


@dataclasses.dataclass(frozen=True)
class _TupleSpec:
    shape: tuple = (2, 2)


def test_parse_axis():
    assert parse_axis("momentum=0,0.9")[1].resolve() == [0, 0.9]
    assert parse_axis("opt=adam,sgd")[1].resolve() == ["adam", "sgd"]
    assert parse_axis("flag=true")[1].resolve() == [True]
    assert parse_axis("seeds=8") == ("seeds", 8)
    np.testing.assert_allclose(parse_axis("lr=log(1e-3, 1e-1, 3)")[1].resolve(), [1e-3, 1e-2, 1e-1])
    assert len(parse_axis("lr=loguniform(1e-3,1e-1,5,7)")[1].resolve()) == 5
    for bad, msg in [
        ("lr", "expected AXIS=VALUES"),
        ("lr=", "empty value"),
        ("lr=__import__('os')", "cannot parse value"),
        ("lr=log(0,1,3)", "positive bounds"),
        ("seeds=-1", "seeds must be a positive integer"),
        ("lr=log(1,2)", "takes 3..3"),
    ]:
        with pytest.raises(SpaceError, match=msg.replace("(", r"\(")):
            parse_axis(bad)


# -- fuzzing the constructor -----------------------------------------------------------

TRIED = {"malformed": 0, "wellformed": 0}

bad_axis = st.one_of(
    st.just(values()),
    st.builds(lambda a, n: log(a, 1.0, num=n), st.floats(max_value=0.0, allow_nan=False), st.integers(1, 5)),
    st.builds(lambda n: log(1e-3, 1.0, num=n), st.integers(max_value=0)),
    st.builds(lambda lo, hi: uniform(lo, hi, count=3), st.floats(0, 10), st.floats(-10, 0)),
    st.builds(lambda lo: loguniform(lo, 1.0, count=3), st.floats(-10, 0)),
    st.builds(lambda v: values(v), st.sampled_from([float("nan"), float("inf"), -float("inf")])),
    st.builds(lambda k: zipped(a=[1.0] * k, b=[1.0] * (k + 1)), st.integers(1, 4)),
)
good_axis = st.one_of(
    st.builds(lambda vs: values(*vs), st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=4)),
    st.builds(lambda a, n: log(a, a * 10, num=n), st.floats(1e-6, 1.0), st.integers(1, 5)),
)
names = st.sampled_from(["lr", "momentum", "noise", "beta", "eps"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    good=st.dictionaries(names, good_axis, max_size=3), bad_name=names, bad=bad_axis, seeds=st.integers(-3, 4)
)
def test_fuzz_malformed_spaces_always_raise_naming_the_fault(good, bad_name, bad, seeds):
    axes = dict(good)
    axes[bad_name] = bad
    TRIED["malformed"] += 1
    with pytest.raises(SpaceError) as e:
        Space(seeds=seeds, **axes)
    msg = str(e.value)
    assert bad_name in msg or "seeds" in msg


@settings(max_examples=100, deadline=None)
@given(good=st.dictionaries(names, good_axis, min_size=1, max_size=3), seeds=st.integers(1, 4))
def test_fuzz_wellformed_spaces_flatten_consistently(good, seeds):
    TRIED["wellformed"] += 1
    space = Space(seeds=seeds, **good)
    b = space.bind(Spec(), {n: 0.0 for n in good})
    t = b.dynamic_table()
    assert all(len(v) == b.num_configs for v in t.values())
    assert b.num_configs == int(np.prod([len(a) for a in space.axes.values()]))


def test_fuzz_counts_are_recorded():
    # Runs after the two fuzz tests in file order: record how many specs were tried.
    print(f"fuzzed spaces: {TRIED['malformed']} malformed, {TRIED['wellformed']} well-formed")
    assert TRIED["malformed"] >= 100 and TRIED["wellformed"] >= 50


# -- paired axes and categorical parameters ------------------------------------------


def test_paired_axes_leave_the_key_config_and_enter_the_description():
    space = Space(
        lr=log(0.01, 0.1, num=2),
        pair=zipped(momentum=[0.0, 0.9], noise=[1.0, 2.0]),
        seeds=2,
        paired=("lr", "pair"),
    )
    cfg = {"lr": 0.01, "momentum": 0.9, "noise": 2.0, "dim": 4}
    assert space.key_config(cfg) == {"dim": 4}  # a zipped group's name pairs all its members
    assert Space(lr=[0.1], pair=zipped(momentum=[0.0], noise=[1.0]), paired="momentum").key_config(cfg) == {
        "lr": 0.01,
        "noise": 2.0,
        "dim": 4,
    }
    assert space.describe()["paired"] == ["lr", "pair"]
    assert "paired" not in Space(lr=[0.1]).describe()  # unpaired spaces describe as before
    assert space.describe() != Space(lr=log(0.01, 0.1, num=2), seeds=2, pair=space.axes["pair"]).describe()
    assert "paired=lr,pair" in repr(space)


def test_replace_keeps_the_pairing_unless_told():
    space = Space(lr=[0.1, 0.2], momentum=[0.0], seeds=2, paired=("lr",))
    more = space.replace(lr=values(0.1, 0.2, 0.4), seeds=4)
    assert more.paired == ("lr",) and more.seeds == 4 and len(more.axes["lr"]) == 3
    assert space.replace(paired=()).paired == () and space.replace(paired=("momentum",)).paired == (
        "momentum",
    )


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda: Space(lr=[0.1], paired=("lrr",)), "paired names 'lrr', which is not an axis of this space"),
        (lambda: Space(lr=[0.1], paired=("seed",)), "paired names 'seed'"),
        (lambda: Space(lr=[0.1], paired=("lr", "lr")), "paired names an axis twice"),
        (lambda: Space(lr=[0.1], paired=3), "paired must be a tuple of axis names"),
        (lambda: Space(lr=[0.1], paired=(3,)), "paired names 3"),
        (lambda: Space(lr=[0.1], paired=("lr",)).replace(paired=("momentum",)), "paired names 'momentum'"),
    ],
)
def test_bad_pairing_fails_with_a_clear_message(make, message):
    with pytest.raises(SpaceError) as e:
        make()
    assert message in str(e.value)


def test_categorical_declares_codes_by_label():
    opt = categorical("adam", "sgd", "muon")
    assert opt.labels == ("adam", "sgd", "muon") and opt.default == "adam" and len(opt) == 3
    assert [opt.code(x) for x in opt.labels] == [0, 1, 2] and opt.label(1) == "sgd"
    assert opt.codes(np.asarray(["muon", "sgd", "muon"])).tolist() == [2, 1, 2]
    assert opt.codes(["sgd"]).dtype == np.int32
    assert opt.with_default("muon") == categorical("adam", "sgd", "muon", default="muon")
    assert categorical(["a", "b"]).labels == ("a", "b")


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda: categorical(), "needs at least one label"),
        (lambda: categorical("adam", "adam"), "categorical labels repeat"),
        (lambda: categorical("adam", 1), "labels must be non-empty strings, got 1"),
        (lambda: categorical("adam", ""), "labels must be non-empty strings"),
        (lambda: categorical("adam", "sgd", default="rmsprop"), "default 'rmsprop' is not one of its labels"),
        (lambda: categorical("adam", "sgd").with_default("rmsprop"), "unknown label 'rmsprop'"),
        (lambda: categorical("adam", "sgd").with_default(1), "is one of its labels (adam, sgd), got 1"),
        (
            lambda: categorical("adam", "sgd").code("rmsprop"),
            "unknown label 'rmsprop'; the labels are adam, sgd",
        ),
        (lambda: categorical("adam", "sgd").label(2), "code 2 is out of range"),
    ],
)
def test_bad_categorical_fails_with_a_clear_message(make, message):
    with pytest.raises(SpaceError) as e:
        make()
    assert message in str(e.value)


def test_categorical_switch_orders_branches_by_label():
    import jax
    import jax.numpy as jnp

    opt = categorical("double", "negate", "square")
    branches = {"square": lambda x: x * x, "negate": lambda x: -x, "double": lambda x: 2 * x}
    out = jax.vmap(lambda c, x: opt.switch(c, branches, x))(
        jnp.asarray(opt.codes(["negate", "square", "double"])), jnp.asarray([3.0, 3.0, 3.0])
    )
    np.testing.assert_array_equal(np.asarray(out), [-3.0, 9.0, 6.0])
    with pytest.raises(SpaceError, match="missing square"):
        opt.switch(0, {"double": abs, "negate": abs}, 1.0)
    with pytest.raises(SpaceError, match="unknown cube"):
        opt.switch(0, {**branches, "cube": abs}, 1.0)


def test_labels_bind_only_to_categorical_parameters():
    params = {**PARAMS, "opt": categorical("adam", "sgd")}
    b = Space(opt=values("sgd", "adam"), lr=[0.1]).bind(Spec(), params)
    assert list(b.dynamic_axes) == ["opt", "lr"]
    assert b.dynamic_table()["opt"].tolist() == ["sgd", "adam"]  # labels: the keys hash them
    z = Space(p=zipped(opt=["sgd", "adam"], lr=[0.1, 0.2])).bind(Spec(), params)
    assert z.dynamic_table()["opt"].tolist() == ["sgd", "adam"]
    with pytest.raises(
        SpaceError, match="axis 'opt': unknown label 'rmsprop'; parameter 'opt' takes adam, sgd"
    ):
        Space(opt=values("adam", "rmsprop")).bind(Spec(), params)
    with pytest.raises(
        SpaceError, match=r"parameter 'opt' is categorical; give its labels \(adam, sgd\), not 0"
    ):
        Space(opt=values(0, 1)).bind(Spec(), params)
    with pytest.raises(SpaceError, match="axis 'opt': unknown label 'x'"):
        Space(p=zipped(opt=["x"], lr=[0.1])).bind(Spec(), params)
    with pytest.raises(SpaceError, match="declare the parameter categorical"):
        Space(lr=values("adam")).bind(Spec(), params)
    with pytest.raises(SpaceError, match=r"parameter 'opt' has the label 'adam' as its default: declare it"):
        Space(lr=[0.1]).bind(Spec(), {**PARAMS, "opt": "adam"})


def test_parse_axis_refuses_space_settings():
    for text in ("paired=lr", "base_seed=3"):
        with pytest.raises(SpaceError, match="is not an axis; it is part of the preset's space"):
            parse_axis(text)


def test_experiment_resolve_keeps_pairing_and_reads_a_label_default():
    from jaxtheory import Experiment, Paper, Preset

    opt = categorical("adam", "sgd")
    exp = Experiment(
        name="t",
        paper=Paper("t"),
        run=lambda spec, params, key: {},
        spec=Spec(),
        params={"lr": 0.1, "opt": opt},
        presets={
            "smoke": Preset(Space(lr=[0.1, 0.2], seeds=2, paired=("lr",)), params={"opt": "sgd"}),
            "bad": Preset(Space(lr=[0.1]), params={"opt": "rmsprop"}),
        },
    )
    _, params, space = exp.resolve(
        "smoke", {"lr": log(0.01, 1.0, num=3), "opt": values("sgd", "adam"), "seeds": 4}
    )
    assert params["opt"] == opt.with_default("sgd") and params["lr"] == 0.1
    assert space.paired == ("lr",) and space.seeds == 4 and list(space.axes) == ["lr", "opt"]
    with pytest.raises(SpaceError, match="unknown label 'rmsprop'"):
        exp.resolve("bad")
