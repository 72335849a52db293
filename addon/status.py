"""What the panel shows about a scene's cache: frames cached, outdated, baked, and the last problem."""
from . import scene_settings, session


def cache_status(scene):
    """dict(frames, first, last, outdated, baked, error, warnings) for the Cache panel."""
    sess = session.existing(scene)
    baked = scene.softfem.baked
    if sess is None or sess.signature is None:
        return dict(frames=0, first=None, last=None, outdated=False, baked=baked, error=None, warnings=[])
    frames = sess.cached_frames()
    outdated = sess.outdated or (bool(scene_settings.soft_bodies(scene))
                                 and scene_settings.signature(scene) != sess.signature)
    return dict(frames=len(frames), first=frames[0] if frames else None, last=frames[-1] if frames else None,
                outdated=outdated, baked=baked, error=sess.error, warnings=list(sess.warnings))
