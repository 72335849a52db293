"""Headless Blender for the add-on tests: a throwaway user folder, the source checkout linked as the extension."""
import hashlib
import os
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
def softfem():
    """The enabled add-on's root module (bl_ext.user_default.softfem)."""
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
