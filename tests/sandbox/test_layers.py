"""The confinement level every report prints is computed from the layers that held, not from their names."""

from grader.sandbox.containment import KERNEL, PROCESS, Layer, held, level_of


def test_the_level_is_kernel_only_when_a_layer_that_confines_files_by_the_kernel_held():
    uid, seccomp = Layer("uid 65534", True), Layer("seccomp", True)
    assert level_of([uid, seccomp]) == PROCESS
    assert level_of([Layer("landlock ABI 7", False, files_by_kernel=True), uid, seccomp]) == PROCESS
    assert level_of([Layer("landlock ABI 7", True, files_by_kernel=True), seccomp]) == KERNEL
    assert level_of([Layer("a layer named anything", True, files_by_kernel=True)]) == KERNEL
    assert level_of([]) == PROCESS


def test_reports_list_the_layers_that_held_in_order():
    layers = [Layer("mount-namespace", False, True), Layer("uid 65534", True), Layer("seccomp", True)]
    assert held(layers) == ["uid 65534", "seccomp"]
