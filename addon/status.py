"""What the panel shows about a scene's cache: frames cached, outdated, baked, and the last problem."""
from . import scene_settings, session


def cache_status(scene):
    """dict(frames, first, last, outdated, baked, error, warnings, hint) for the Cache panel; hint: why the
    current frame is not simulated when the reason is a scene setting (None otherwise)."""
    sess = session.existing(scene)
    baked = scene.softfem.baked
    if sess is None or sess.signature is None:
        return dict(frames=0, first=None, last=None, outdated=False, baked=baked, error=None, warnings=[],
                    hint=None)
    frames = sess.cached_frames()
    outdated = sess.outdated or (bool(scene_settings.soft_bodies(scene))
                                 and scene_settings.signature(scene) != sess.signature)
    return dict(frames=len(frames), first=frames[0] if frames else None, last=frames[-1] if frames else None,
                outdated=outdated, baked=baked, error=sess.error, warnings=list(sess.warnings),
                hint=None if baked else _hint(scene, frames))


def _hint(scene, frames):
    """Why the current frame is not simulated, when a scene setting stops it: the simulation's frame range, or a
    Frame Step above 1 (a frame is simulated from the one before it)."""
    end = scene_settings.frame_range(scene)[1]
    frame = scene.frame_current
    if frame > end:
        return f"The simulation ends at frame {end}: raise the Simulation Frame Range's End to go on"
    if scene.frame_step > 1 and frame not in frames and frame - 1 not in frames:
        return (f"Frame Step is {scene.frame_step}: frames are simulated one after another; "
                "set it to 1 to play the simulation, or Bake")
    return None
