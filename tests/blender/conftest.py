"""Headless Blender for the add-on tests: a throwaway user folder, the source checkout linked as the extension."""
import hashlib
import os
import sys
import tempfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULE = "bl_ext.user_default.softfem"

# Before bpy is imported: Blender reads its user folder once, at import. Its path is stable (and it is not
# emptied: test runs may overlap) because numba keys its on-disk cache by the source files' paths, which lie in it.
_USER = os.path.join(tempfile.gettempdir(),
                     "softfem_blender_user_" + hashlib.md5(REPO.encode()).hexdigest()[:8])
os.makedirs(_USER, exist_ok=True)
os.environ["BLENDER_USER_RESOURCES"] = _USER
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(REPO, ".numba_cache"))


def _link_and_enable():
    import addon_utils
    import bpy
    extensions = bpy.utils.user_resource('EXTENSIONS', path="user_default", create=True)
    link = os.path.join(extensions, "softfem")
    if os.path.realpath(link) != os.path.realpath(REPO):
        if os.path.islink(link):
            os.remove(link)
        os.symlink(REPO, link)
    addon_utils.enable(MODULE, default_set=True, handle_error=None)
    return sys.modules[MODULE]


@pytest.fixture(scope="session")
def softfem():
    """The enabled add-on's root module (bl_ext.user_default.softfem)."""
    module = _link_and_enable()
    assert module is not None
    return module


@pytest.fixture
def blender(softfem, tmp_path):
    """bpy with an empty factory scene, the add-on enabled, frames 1-250 at 24 fps; cache in tmp_path."""
    import bpy
    bpy.ops.wm.read_factory_settings(use_empty=True)
    _link_and_enable()
    bpy.context.scene.softfem.cache_directory = str(tmp_path / "cache") + os.sep
    yield bpy
    bpy.ops.wm.read_factory_settings(use_empty=True)


def add_ico(bpy, location=(0.0, 0.0, 2.0), subdivisions=2, radius=0.5, name="Ball"):
    """An icosphere mesh object, selected and active."""
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=subdivisions, radius=radius, location=location)
    obj = bpy.context.active_object
    obj.name = name
    return obj
