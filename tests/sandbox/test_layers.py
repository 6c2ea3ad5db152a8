"""The confinement level every report prints is computed from the layers that held, not from their names."""

from grader.sandbox.containment import KERNEL, PROCESS, Layer, held, level_of


def test_the_level_is_kernel_only_when_every_layer_held_and_one_confines_files_by_the_kernel():
    uid, seccomp = Layer("uid 65534", True), Layer("seccomp", True)
    assert level_of([uid, seccomp]) == PROCESS
    assert level_of([Layer("landlock ABI 7", False, files_by_kernel=True), uid, seccomp]) == PROCESS
    assert level_of([Layer("landlock ABI 7", True, files_by_kernel=True), seccomp]) == KERNEL
    assert level_of([Layer("a layer named anything", True, files_by_kernel=True)]) == KERNEL
    assert level_of([]) == PROCESS
    # one layer that did not hold (no PID namespace: other processes' command lines in view), even
    # with the files confined by the kernel, is not "kernel"
    landlock = Layer("landlock ABI 7", True, files_by_kernel=True)
    assert level_of([landlock, Layer("pid-namespace", False), seccomp]) == PROCESS
    assert level_of([Layer("mount-namespace", False, True), landlock, seccomp]) == PROCESS


def test_reports_list_the_layers_that_held_in_order():
    layers = [Layer("mount-namespace", False, True), Layer("uid 65534", True), Layer("seccomp", True)]
    assert held(layers) == ["uid 65534", "seccomp"]
