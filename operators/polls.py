"""Operator poll helpers: SoftFEM reads mesh data, so nothing runs while an object is being edited."""


def _object_mode(cls, context):
    """False (with a reason shown on the greyed button) outside Object-like modes: Edit Mode holds mesh
    edits that are not in the mesh data yet."""
    if context.mode.startswith('EDIT'):
        cls.poll_message_set("Leave Edit Mode first")
        return False
    return True


def _targets(context):
    objects = list(getattr(context, "selected_objects", None) or [])
    active = getattr(context, "object", None)
    return objects or ([active] if active is not None else [])


def can_add(cls, context):
    """A selected (or active) mesh that is not yet a SoftFEM body, in Object Mode."""
    if not _object_mode(cls, context):
        return False
    targets = _targets(context)
    if not any(o.type == 'MESH' and not o.softfem.enabled for o in targets):
        if len(targets) == 1 and targets[0].type != 'MESH':
            cls.poll_message_set(f"'{targets[0].name}' is not a mesh (its type is {targets[0].type.lower()})")
        else:
            cls.poll_message_set("Select a mesh object that is not a SoftFEM body yet")
        return False
    return True


def has_body(cls, context):
    """A selected (or active) SoftFEM body, in Object Mode."""
    if not _object_mode(cls, context):
        return False
    if not any(o.type == 'MESH' and o.softfem.enabled for o in _targets(context)):
        cls.poll_message_set("Select a SoftFEM body")
        return False
    return True


def scene_ready(cls, context):
    """A scene, in Object Mode (baking and freeing show frames, which reads the bodies' meshes)."""
    return context.scene is not None and _object_mode(cls, context)
