"""The viewport overlay: a gpu draw handler, registered only while a scene's Show Cage Overlay is on.

It draws each soft body's cage at the shown frame (pinned nodes marked, optionally coloured by tet quality) and the
contacts of the frame just simulated as lines along their normal forces."""
import bpy
import numpy as np

from . import session
from .dependencies import load_core

CAGE_COLOUR = (0.35, 0.75, 1.0, 0.5)
PIN_COLOUR = (1.0, 0.25, 0.9, 1.0)
CONTACT_COLOUR = (1.0, 0.85, 0.1, 1.0)
FORCE_LENGTH = 2.0    # the largest normal force is drawn this many of its body's mean cage edges long
PIN_SIZE = 6.0        # pixels

_handle = None        # the SpaceView3D draw handler, while drawing
_drawn = {}           # the batches drawn, and what they were made from ("shown", "quality")
_failed = []          # a drawing error, printed once


def drawing():
    """Whether the overlay's draw handler is registered."""
    return _handle is not None


def sync():
    """Register the draw handler while some scene has Show Cage Overlay on, remove it otherwise (while Blender
    registers add-ons, before a file's data can be read, nothing: the file's load calls this again)."""
    global _handle
    scenes = getattr(bpy.data, "scenes", None)
    wanted = scenes is not None and any(s.softfem.show_overlay for s in scenes)
    if wanted and _handle is None:
        _handle = bpy.types.SpaceView3D.draw_handler_add(_draw, (), 'WINDOW', 'POST_VIEW')
    elif not wanted:
        remove()
    redraw()


def remove():
    """Remove the draw handler (the add-on is disabled, or no scene shows the overlay) and forget its batches."""
    global _handle
    if _handle is not None:
        bpy.types.SpaceView3D.draw_handler_remove(_handle, 'WINDOW')
        _handle = None
    _drawn.clear()


def redraw():
    """Redraw the 3D Views (what the overlay shows changed)."""
    wm = getattr(bpy.context, "window_manager", None)
    for window in (wm.windows if wm is not None else ()):
        for area in window.screen.areas:
            if area.type == 'VIEW_3D':
                area.tag_redraw()


def _quality_colours(quality):
    """(k,4) colours of tet qualities: green for a regular tet (1), through yellow to red at 0 and below."""
    q = np.clip(quality, 0.0, 1.0)[:, None]
    return np.hstack([np.minimum(1.0, 2.0 - 2.0 * q), np.minimum(1.0, 2.0 * q), np.zeros_like(q), np.ones_like(q)])


def geometry(scene):
    """What the overlay draws for the scene now, in world space: "lines" (2L,3) float32 segments with "line_colours"
    (2L,4) (every shown body's cage edges, then the contact lines), "points" (P,3) the pinned nodes, and the counts
    "edges" and "contacts". Empty when no frame is shown."""
    sess = session.existing(scene)
    lines, colours, points = [np.zeros((0, 3))], [np.zeros((0, 4))], [np.zeros((0, 3))]
    edge_count = contact_count = 0
    if sess is not None and sess.shown is not None and sess.bodies is not None:
        frame, state = sess.shown
        for body, (x, *_) in zip(sess.bodies, state):
            edges, order, starts = body.cage_edges()
            lines.append(x[edges].reshape(-1, 3))
            if scene.softfem.overlay_quality:
                quality = load_core().geometry.quality.tet_quality(x, body.tm.tets)
                worst = np.minimum.reduceat(np.repeat(quality, 6)[order], starts)
                colours.append(np.repeat(_quality_colours(worst), 2, axis=0))
            else:
                colours.append(np.broadcast_to(CAGE_COLOUR, (2 * len(edges), 4)))
            points.append(x[body.pinned])
            edge_count += len(edges)
        if sess.world is not None and sess.current == frame:   # the contacts of the frame just simulated
            contacts = sess.world.contacts
            push = np.maximum(np.einsum("ij,ij->i", contacts.forces, contacts.normals), 0.0)
            if len(push) and push.max() > 0.0:
                edge = np.array([sess.bodies[b].edge for b in contacts.body])
                ends = contacts.points + contacts.normals * (FORCE_LENGTH * edge * push / push.max())[:, None]
                lines.append(np.stack([contacts.points, ends], axis=1).reshape(-1, 3))
                colours.append(np.broadcast_to(CONTACT_COLOUR, (2 * len(push), 4)))
                contact_count = len(push)
    return {"lines": np.concatenate(lines).astype(np.float32), "line_colours": np.concatenate(colours).astype(np.float32),
            "points": np.concatenate(points).astype(np.float32), "edges": edge_count, "contacts": contact_count}


def _batches(shapes):
    """GPU batches of geometry(): [(shader, batch, point size or None)]."""
    import gpu
    from gpu_extras.batch import batch_for_shader
    out = []
    if len(shapes["lines"]):
        shader = gpu.shader.from_builtin('FLAT_COLOR')
        out.append((shader, batch_for_shader(shader, 'LINES', {"pos": shapes["lines"],
                                                               "color": shapes["line_colours"]}), None))
    if len(shapes["points"]):
        shader = gpu.shader.from_builtin('POINT_UNIFORM_COLOR')
        out.append((shader, batch_for_shader(shader, 'POINTS', {"pos": shapes["points"]}), PIN_SIZE))
    return out


def _draw():
    """The draw callback: the scene's overlay, its batches made again only when the shown frame or the colouring
    changed (a redraw of the same frame only draws them); an error is printed once, never raised at the user."""
    try:
        scene = bpy.context.scene
        if scene is None or not scene.softfem.show_overlay:
            return
        sess = session.existing(scene)
        shown = sess.shown if sess is not None else None
        if ("batches" not in _drawn or _drawn["shown"] is not shown
                or _drawn["quality"] != scene.softfem.overlay_quality):
            _drawn.update(batches=_batches(geometry(scene)), shown=shown, quality=scene.softfem.overlay_quality)
        import gpu
        gpu.state.blend_set('ALPHA')
        for shader, batch, point_size in _drawn["batches"]:
            shader.bind()
            if point_size is not None:
                shader.uniform_float("size", point_size)
                shader.uniform_float("color", PIN_COLOUR)
            batch.draw(shader)
        gpu.state.blend_set('NONE')
    except Exception as exc:   # a draw callback must never raise at the user
        if not _failed:
            _failed.append(exc)
            print(f"SoftFEM: the cage overlay cannot draw: {type(exc).__name__}: {exc}".splitlines()[0])
