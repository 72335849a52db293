"""Property groups: obj.softfem (material, groups, cage) and scene.softfem (solver, cache)."""
import bpy
from bpy.props import (BoolProperty, EnumProperty, FloatProperty, FloatVectorProperty, IntProperty, PointerProperty,
                       StringProperty)

from . import frame_handler, overlay
from .presets import MATERIAL_FIELDS, MATERIAL_MODELS, PRESETS, preset_items

_applying_preset = False   # each field set by a preset fires _material_changed: the others still differ then
# The cache folder's '//' is the .blend's folder: said so since Blender 4.5, which warns of the prefix otherwise
_BLEND_RELATIVE_PATH = {'PATH_SUPPORTS_BLEND_RELATIVE'} if bpy.app.version >= (4, 5, 0) else set()


def _apply_preset(settings, _context):
    global _applying_preset
    preset = PRESETS.get(settings.preset)
    if preset is None:
        return
    _applying_preset = True
    try:
        for field in MATERIAL_FIELDS:
            if getattr(settings, field) != preset[field]:
                setattr(settings, field, preset[field])
    finally:
        _applying_preset = False


def _differs(value, preset_value):
    if isinstance(preset_value, str):
        return value != preset_value
    return abs(value - preset_value) > 1e-6 * max(1.0, abs(preset_value))


def _material_changed(settings, _context):
    preset = PRESETS.get(settings.preset)
    if _applying_preset or preset is None:
        return
    if any(_differs(getattr(settings, f), preset[f]) for f in MATERIAL_FIELDS):
        settings.preset = "CUSTOM"


def _weight(name, what):
    return FloatProperty(name=name, default=1.0, min=-200.0, max=200.0, soft_min=0.0, soft_max=1.0,
                         options=set(), description=f"How much {what} act on this body (1: fully)")


class SoftFEMEffectorWeights(bpy.types.PropertyGroup):
    """Which force fields act on a body and how much (the fields of Blender's Effector Weights SoftFEM uses)."""

    collection: PointerProperty(name="Effector Collection", type=bpy.types.Collection, options=set(),
                                description="Only force fields of this collection act (empty: every field of the "
                                            "scene)")
    gravity: _weight("Gravity", "the scene's gravity does")
    all: _weight("All", "all force fields do (gravity excepted)")
    wind: _weight("Wind", "Wind fields")
    force: _weight("Force", "Force fields")
    vortex: _weight("Vortex", "Vortex fields")
    turbulence: _weight("Turbulence", "Turbulence fields")


class SoftFEMObjectSettings(bpy.types.PropertyGroup):
    """Per-object soft body settings (the same `friction` serves Collision objects)."""

    enabled: BoolProperty(name="SoftFEM Body", default=False, options=set(),
                          description="This object is a SoftFEM body (set by Add/Remove SoftFEM)")
    preset: EnumProperty(name="Preset", items=preset_items(), default="CUSTOM", update=_apply_preset,
                         options=set(),
                         description="Fill the material with measured values of a real material")
    youngs_modulus: FloatProperty(name="Young's Modulus (Pa)", default=1.0e5, min=1.0, soft_min=100.0,
                                  soft_max=1.0e8, precision=0, update=_material_changed,
                                  description="Stiffness in pascals (N/m²): jelly ~5e3, flesh ~3e4, rubber ~4e6")
    poisson_ratio: FloatProperty(name="Poisson Ratio", default=0.45, min=-0.99, max=0.499, soft_min=0.0,
                                 soft_max=0.49, precision=3, update=_material_changed, options=set(),
                                 description="Lateral contraction under stretch (dimensionless, below 0.5; "
                                             "near 0.5 keeps volume, above 0.45 linear tets lock)")
    density: FloatProperty(name="Density (kg/m³)", default=1000.0, min=0.001, soft_min=1.0, soft_max=20000.0,
                           update=_material_changed, options=set(),
                           description="Mass per volume in kg/m³ (water: 1000)")
    material_model: EnumProperty(name="Material Model", items=MATERIAL_MODELS, default="COROTATED",
                                 update=_material_changed, options=set(),
                                 description="How the material answers large deformation (the presets pick one)")
    mooney_rivlin_c10: FloatProperty(name="C10 (Pa)", default=1.5e4, min=0.0, soft_max=1.0e7, precision=0,
                                     options=set(),
                                     description="Mooney-Rivlin first shear coefficient in pascals (the "
                                                 "neo-Hookean part); shear modulus at small strain = 2 (C10 + C01)")
    mooney_rivlin_c01: FloatProperty(name="C01 (Pa)", default=2.0e3, min=0.0, soft_max=1.0e7, precision=0,
                                     options=set(),
                                     description="Mooney-Rivlin second shear coefficient in pascals (stiffening "
                                                 "under biaxial stretch); C10 + C01 must be above 0")
    damping: FloatProperty(name="Damping (s)", default=0.01, min=0.0, soft_max=0.1, precision=4,
                           unit='TIME_ABSOLUTE', update=_material_changed,
                           description="Rayleigh stiffness damping in seconds: a vibration of angular "
                                       "frequency w loses a damping ratio of damping*w/2")
    friction: FloatProperty(name="Friction", default=0.5, min=0.0, soft_max=2.0, update=_material_changed,
                            description="Coulomb friction coefficient mu (dimensionless); also used when "
                                        "this object is a Collision object")
    pin_group: StringProperty(name="Pin Group", default="", options=set(),
                              description="Vertex group pinning the body to the object's animated shape: weight 1 "
                                          "follows it exactly, lighter weights are pulled toward it by springs "
                                          "(Pin Spring), 0 is free ('' for none)")
    pin_spring: FloatProperty(name="Pin Spring", default=5.0, min=0.01, soft_max=50.0, options=set(),
                              description="How fast a vertex of pin weight 0.5 springs back toward its pinned place, "
                                          "in Hz (weight w: this times sqrt(w / (1 - w)); weight 1 holds exactly)")
    stiffness_group: StringProperty(name="Stiffness Group", default="", options=set(),
                                    description="Vertex group scaling Young's modulus per region by its "
                                                "weight (floor 1 %); vertices outside it keep full stiffness "
                                                "('' for none)")
    initial_velocity: FloatVectorProperty(name="Initial Velocity", default=(0.0, 0.0, 0.0), subtype='VELOCITY',
                                          unit='VELOCITY', size=3, options=set(),
                                          description="World-space velocity of the body at the start frame (m/s)")
    initial_angular_velocity: FloatVectorProperty(name="Initial Spin", default=(0.0, 0.0, 0.0), size=3,
                                                  subtype='XYZ', options=set(),
                                                  description="World-space angular velocity at the start frame "
                                                              "(rad/s) about the body's centre of mass")
    animated: BoolProperty(name="Animated", default=False,
                           description="Follow the object's own animation (transform, armature, shape keys) "
                                       "instead of simulating; keyframe it off to hand over to the simulation, "
                                       "which goes on with the animation's velocity (as Rigid Body's Animated)")
    effector_weights: PointerProperty(type=SoftFEMEffectorWeights, name="Field Weights", options=set(),
                                      description="Which force fields act on this body, and its gravity factor")
    resolution: IntProperty(name="Resolution", default=0, min=0, max=256, soft_max=64, options=set(),
                            description="Cage cells along the longest side of the mesh's bounding box; 0: Auto, "
                                        "the finest cage of at most 1,500 tets, whatever the object's size")
    refine_thin: BoolProperty(name="Refine Thin Parts", default=False, options=set(),
                              description="Cage mode: cells finer where the mesh is thinner than a cell (ears, tails, "
                                          "plates), until two go through it, so such parts bend as they should. "
                                          "Costs tets: Suzanne's ears and brow take her Auto cage from 1,354 to "
                                          "about 28,000")
    mode: EnumProperty(name="Mode", default="CAGE", options=set(),
                       items=[("CAGE", "Cage", "Coarse tet cage around the mesh; the mesh is embedded in it"),
                              ("CONFORMING", "Conforming",
                               "Tets whose boundary follows the mesh within the Envelope (fTetWild; open, "
                               "non-manifold and detailed meshes too)")],
                       description="How the solid is filled with tetrahedra")
    envelope: FloatProperty(name="Envelope", default=0.001, min=1e-5, max=0.1, precision=4, step=0.01,
                            options=set(),
                            description="Conforming mode: how far the tets' boundary may stray from the mesh, as a "
                                        "fraction of the bounding-box diagonal (larger is faster and coarser)")
    self_collision: BoolProperty(name="Self Collision", default=False, options=set(),
                                 description="The body's surface also collides with itself (a bar folding over a "
                                             "rod, an ear pressed onto a head). Off by default: a detailed mesh pays "
                                             "for it while it deforms (the 36k-vertex bunny's landing: three to five "
                                             "times its step; at rest little). Two parts of the surface inside one "
                                             "cage cell cannot be pushed apart: raise Resolution for thin gaps")
    output_strain: BoolProperty(name="Output Strain", default=False, options=set(),
                                update=lambda settings, context: frame_handler.output_strain_toggled(
                                    settings.id_data, context.scene),
                                description="Give the mesh the point attributes softfem_strain (equivalent strain), "
                                            "softfem_volume_change (det F - 1) and softfem_stress (von Mises, Pa) of "
                                            "each frame, for an Attribute node in a material (costs nothing when "
                                            "off)")
    # Written by the operators; shown in the Cage panel.
    cache_id: StringProperty(name="Cache Id", default="", options={'HIDDEN'},
                             description="What the simulation's cache knows this body by, kept when it is renamed")
    cage_key: StringProperty(name="Cage Key", default="", options={'HIDDEN'},
                             description="Identity of the cage this object was tetrahedralized with")
    cage_nodes: IntProperty(name="Nodes", default=0, options={'HIDDEN'}, description="Cage nodes")
    cage_tets: IntProperty(name="Tets", default=0, options={'HIDDEN'}, description="Cage tetrahedra")
    cage_embedded: IntProperty(name="Embedded Vertices", default=0, options={'HIDDEN'},
                               description="Mesh vertices driven by the cage")
    cage_quality: FloatProperty(name="Min Quality", default=0.0, options={'HIDDEN'},
                                description="Smallest tet quality of the cage (1 = regular tet)")
    cage_summary: StringProperty(name="Tetrahedralized", default="", options={'HIDDEN'},
                                 description="What the last Tetrahedralize did: mode, nodes, tets, quality, and "
                                             "for an open mesh the volume that was filled")
    cage_thin: StringProperty(name="Thin Part", default="", options={'HIDDEN'},
                              description="The part of the mesh thinner than a cage cell, and the Resolution that "
                                          "holds it (empty: none)")


def _frame_range_toggled(settings, context):
    if settings.use_frame_range:   # start from the scene's range
        scene = settings.id_data
        settings.frame_start, settings.frame_end = scene.frame_start, scene.frame_end


class SoftFEMSceneSettings(bpy.types.PropertyGroup):
    """Per-scene solver and cache settings."""

    substeps: IntProperty(name="Substeps", default=4, min=1, max=200, soft_max=50, options=set(),
                          description="Solver steps per frame (each 1/(fps*substeps) s), at most when Adaptive; "
                                      "raise it for stiff materials or fast motion")
    adaptive_substeps: BoolProperty(name="Adaptive", default=True, options=set(),
                                    description="Each frame takes as few of the Substeps as its motion needs: one "
                                                "when calm, all of them at an impact or while a body swings (no "
                                                "node moves half a cage cell, or deforms a tenth of one, a step)")
    integrator: EnumProperty(name="Integrator", default="BACKWARD_EULER", options=set(),
                             items=[("BACKWARD_EULER", "Backward Euler",
                                     "Stable, damps fast wobble numerically (more with fewer substeps)"),
                                    ("NEWMARK", "Newmark",
                                     "Keeps the jiggle: no numerical damping, so it needs Damping to settle")],
                             description="How each step advances in time: Backward Euler settles by itself, "
                                         "Newmark keeps the wobble lively")
    newton_iterations: IntProperty(name="Newton Iterations", default=0, min=0, max=20, options=set(),
                                   description="Newton iterations per step; 0 = Auto: 1 with Backward Euler, 2 with "
                                               "Newmark (with 1 it loses much of the energy it should keep)")
    cg_iterations: IntProperty(name="CG Iterations", default=50, min=1, max=1000, options=set(),
                               description="Cap on conjugate-gradient iterations per Newton iteration")
    cache_directory: StringProperty(name="Cache Folder", default="//softfem_cache/", subtype='DIR_PATH',
                                    options=_BLEND_RELATIVE_PATH,
                                    description="Folder for cached frames ('//' is beside the .blend; a "
                                                "temporary folder while the file is unsaved)")
    time_scale: FloatProperty(name="Speed", default=1.0, min=1e-4, soft_min=0.1, soft_max=10.0, options=set(),
                              description="Simulated seconds per second of the scene (below 1: slow motion)")
    use_frame_range: BoolProperty(name="Simulation Frame Range", default=False, options=set(),
                                  update=_frame_range_toggled,
                                  description="Simulate its own frame range instead of the scene's (a start before "
                                              "the scene's is a pre-roll: Bake simulates it)")
    frame_start: IntProperty(name="Start", default=1, min=-1048574, max=1048574, options=set(),
                             description="First simulated frame: bodies are at rest in their initial shape there")
    frame_end: IntProperty(name="End", default=250, min=-1048574, max=1048574, options=set(),
                           description="Last simulated frame: later frames show it")
    collision_collection: PointerProperty(name="Collision Collection", type=bpy.types.Collection, options=set(),
                                          description="Only objects of this collection collide with SoftFEM "
                                                      "bodies (empty: every Collision object of the scene)")
    show_overlay: BoolProperty(name="Show Cage Overlay", default=False, options=set(),
                               update=lambda _settings, _context: overlay.sync(),
                               description="Draw the soft bodies' cages in the 3D View (pinned nodes marked) and the "
                                           "contacts of the frame just simulated, each a line along its normal force")
    overlay_quality: BoolProperty(name="Tet Quality", default=False, options=set(),
                                  update=lambda _settings, _context: overlay.redraw(),
                                  description="Colour the overlay's cage edges by the quality of their worst tet "
                                              "(green: regular, red: flat or inverted)")
    baked: BoolProperty(name="Baked", default=False, options={'HIDDEN'},
                        description="The cache is baked: protected until Free Bake")


CLASSES = (SoftFEMEffectorWeights, SoftFEMObjectSettings, SoftFEMSceneSettings)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Object.softfem = bpy.props.PointerProperty(type=SoftFEMObjectSettings)
    bpy.types.Scene.softfem = bpy.props.PointerProperty(type=SoftFEMSceneSettings)


def unregister():
    del bpy.types.Scene.softfem
    del bpy.types.Object.softfem
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
