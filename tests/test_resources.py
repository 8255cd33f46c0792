"""Memory readings (machine, cgroup v1/v2, address-space limit) faked on disk, the guard that uses the
smallest, the exact engine chooser on any number of variables (1,024 and more included), and freed memory
given back."""

import resource
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bnexplore import cli, resources
from bnexplore.errors import ResourceError
from bnexplore.search import exact
from bnexplore.search.exact import check_memory, choose_engine

GIB = 2**30


def fake_system(tmp, meminfo_kb=None, cgroup_lines=(), files=None, vmsize_kb=1000):
    """A fake /proc and /sys/fs/cgroup under ``tmp``: returns ``(proc, cgroup_root)``."""
    proc, root = tmp / "proc", tmp / "cgroup"
    (proc / "self").mkdir(parents=True)
    root.mkdir()
    if meminfo_kb is not None:
        (proc / "meminfo").write_text(f"MemTotal: 99999999 kB\nMemFree: 1 kB\nMemAvailable: {meminfo_kb} kB\n")
    (proc / "self" / "cgroup").write_text("".join(line + "\n" for line in cgroup_lines))
    (proc / "self" / "status").write_text(f"Name: python\nVmPeak: 99 kB\nVmSize: {vmsize_kb} kB\n")
    for name, text in (files or {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return proc, root


@pytest.fixture
def system(tmp_path, monkeypatch):
    """Point bnexplore.resources at a fake system; no address-space limit unless a test sets one."""

    def make(rlimit=resource.RLIM_INFINITY, **kwargs):
        proc, root = fake_system(tmp_path, **kwargs)
        monkeypatch.setattr(resources, "PROC", proc)
        monkeypatch.setattr(resources, "CGROUP_ROOT", root)
        monkeypatch.setattr(resources.resource, "getrlimit", lambda which: (rlimit, resource.RLIM_INFINITY))

    return make


def test_only_meminfo(system):
    system(meminfo_kb=8 * 2**20)
    assert resources.available_memory() == 8 * GIB
    assert resources.cgroup_available() is None and resources.address_space_available() is None


def test_a_cgroup_v2_limit_counts_in_the_own_group_and_above(system):
    system(meminfo_kb=8 * 2**20, cgroup_lines=["0::/app/worker"],
           files={"cgroup.controllers": "memory", "memory.max": "max", "memory.current": "5",
                  "app/memory.max": str(3 * GIB), "app/memory.current": str(GIB),
                  "app/worker/memory.max": "max", "app/worker/memory.current": str(GIB // 2)})
    assert resources.cgroup_available() == 2 * GIB  # the parent's limit holds for its child
    assert resources.available_memory() == 2 * GIB


def test_a_cgroup_v2_limit_in_a_container(system):
    system(meminfo_kb=8 * 2**20, cgroup_lines=["0::/"],
           files={"cgroup.controllers": "memory", "memory.max": str(GIB), "memory.current": str(GIB // 4)})
    assert resources.available_memory() == GIB * 3 // 4


def test_a_cgroup_v1_limit(system):
    system(meminfo_kb=8 * 2**20, cgroup_lines=["5:cpu,cpuacct:/x", "4:memory:/docker/abc", "0::/"],
           files={"memory/memory.limit_in_bytes": "9223372036854771712", "memory/memory.usage_in_bytes": "7",
                  "memory/docker/abc/memory.limit_in_bytes": str(GIB),
                  "memory/docker/abc/memory.usage_in_bytes": str(GIB // 2)})
    assert resources.available_memory() == GIB // 2


def test_a_cgroup_over_its_limit_leaves_nothing(system):
    system(meminfo_kb=8 * 2**20, cgroup_lines=["0::/"],
           files={"cgroup.controllers": "", "memory.max": "100", "memory.current": "250"})
    assert resources.available_memory() == 0


def test_the_address_space_limit_minus_the_current_size(system):
    system(meminfo_kb=8 * 2**20, rlimit=2 * GIB, vmsize_kb=2**20)  # 1 GiB of the 2 already mapped
    assert resources.address_space_available() == GIB
    assert resources.available_memory() == GIB


def test_nothing_readable_means_no_reading(system, monkeypatch):
    system()
    monkeypatch.setattr(resources.os, "sysconf", lambda name: (_ for _ in ()).throw(ValueError(name)))
    assert resources.available_memory() is None
    check_memory(10**15, "anything")  # no reading, no refusal


@pytest.mark.parametrize("kwargs", [
    {"cgroup_lines": ["0::/"], "files": {"cgroup.controllers": "memory", "memory.max": str(GIB),
                                          "memory.current": str(GIB - 10 * 2**20)}},
    {"cgroup_lines": ["4:memory:/"], "files": {"memory/memory.limit_in_bytes": str(GIB),
                                                "memory/memory.usage_in_bytes": str(GIB - 10 * 2**20)}},
    {"rlimit": 2 * GIB, "vmsize_kb": 2 * 2**20 - 10 * 2**10},
])
def test_the_guard_refuses_under_a_container_or_address_space_limit(system, kwargs):
    system(meminfo_kb=64 * 2**20, **kwargs)  # the machine has 64 GiB free; the limit leaves 10 MiB
    with pytest.raises(ResourceError, match=r"needs 64\.0 MiB of memory but only 10\.0 MiB is available"):
        check_memory(64 * 2**20, "the exact search over 20 variables")
    with pytest.raises(ResourceError, match=r"only 10\.0 MiB is available"):
        choose_engine(20, engine="dp")


def test_the_cli_refuses_under_a_cgroup_limit_in_one_line(system, tmp_path, capsys):
    system(meminfo_kb=64 * 2**20, cgroup_lines=["0::/"],
           files={"cgroup.controllers": "memory", "memory.max": str(GIB), "memory.current": str(GIB - 2**20)})
    data = tmp_path / "d.csv"
    pd.DataFrame(np.random.default_rng(0).integers(0, 2, (30, 4)), columns=list("abcd")).to_csv(data, index=False)
    code = cli.main(["learn", str(data), "--algorithm", "exact", "--engine", "dp"])
    err = capsys.readouterr().err
    assert code == 1 and "only 1.0 MiB is available" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("n", [63, 1023, 1024, 5000])
@pytest.mark.parametrize("task", ["optimum", "credible"])
def test_the_engine_chooser_answers_for_any_number_of_variables(n, task):
    assert exact.dp_seconds(n) == float("inf")
    assert choose_engine(n, task=task, engine="ilp")[0] == "ilp"
    with pytest.raises(ResourceError, match=f"at most 62 variables .* this problem has {n}"):
        choose_engine(n, task=task, engine="dp")
    engine, reason, seconds = choose_engine(n, task=task)
    assert engine == "ilp" and "at most 62 variables" in reason and seconds is None


@pytest.fixture
def wide_csv(tmp_path):
    path = tmp_path / "wide.csv"
    frame = pd.DataFrame(np.random.default_rng(1).integers(0, 2, (20, 1024)), columns=[f"v{i}" for i in range(1024)])
    frame.to_csv(path, index=False)
    return path


def test_the_cli_on_1024_variables_says_why_in_one_line(wide_csv, capsys):
    code = cli.main(["learn", str(wide_csv), "--algorithm", "exact", "--engine", "dp"])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "1024" in err and "62 variables" in err


def test_without_the_resource_module_there_is_no_address_space_reading(system, monkeypatch):
    system(meminfo_kb=2**20)
    monkeypatch.setattr(resources, "resource", None)  # Windows
    assert resources.address_space_available() is None and resources.available_memory() == GIB


def test_memory_freed_in_small_blocks_goes_back_to_the_system():
    """Arrays of a few KB live in the C heap, which glibc keeps for the process once they are freed (a block
    still in use above them stops it shrinking): given back, the process's resident memory falls by them."""
    def resident():
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS"):
                return int(line.split()[1]) * 1024
        pytest.skip("no /proc/self/status")

    blocks = [np.ones(512) for _ in range(12000)]  # 48 MB of 4 KB arrays
    pin = np.ones(512)  # allocated after them: the heap's top stays in use
    del blocks
    held = resident()
    if not resources.return_freed_memory():
        pytest.skip("the C library has no malloc_trim (not glibc)")
    assert held - resident() > 30 * 2**20
    assert pin.sum() == 512
