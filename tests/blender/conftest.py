"""Headless Blender for the add-on tests: a throwaway user folder, the source checkout linked as the extension."""
import hashlib
import os
import sys
import tempfile

import pytest

from addon_testing import REPO, link_and_enable


# Before bpy is imported: Blender reads its user folder once, at import. Its path is stable (and it is not
# emptied: test runs may overlap) because numba keys its on-disk cache by the source files' paths, which lie in it.
_USER = os.path.join(tempfile.gettempdir(),
                     "softfem_blender_user_" + hashlib.md5(REPO.encode()).hexdigest()[:8])
os.makedirs(_USER, exist_ok=True)
os.environ["BLENDER_USER_RESOURCES"] = _USER
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(REPO, ".numba_cache"))


@pytest.fixture(scope="session")
def cold_first_use():
    """One cold first use in a fresh process and user folder (the solver compiled from scratch); the kernels it
    compiled then seed this session's numba cache, so the suite compiles them once."""
    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    import first_use
    result = first_use.run(timeout=1800.0, keep_kernels_in=os.environ["NUMBA_CACHE_DIR"])   # minutes on a busy machine
    assert result is not None, "the first-use process failed (its output is above)"
    return result


@pytest.fixture(scope="session")
def softfem(request):
    """The enabled add-on's root module (bl_ext.user_default.softfem). When the cold first-use test is collected,
    it runs first: enabling the add-on before it would compile every kernel a second time."""
    if any(item.path.name == "test_addon_first_use.py" for item in request.session.items):
        request.getfixturevalue("cold_first_use")
    module = link_and_enable()
    assert module is not None
    return module


@pytest.fixture
def blender(softfem, tmp_path):
    """bpy with an empty factory scene, the add-on enabled, frames 1-250 at 24 fps; cache in tmp_path."""
    import bpy
    bpy.ops.wm.read_factory_settings(use_empty=True)
    link_and_enable()
    bpy.context.scene.softfem.cache_directory = str(tmp_path / "cache") + os.sep
    yield bpy
    bpy.ops.wm.read_factory_settings(use_empty=True)
