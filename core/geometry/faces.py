"""Face adjacency of tet meshes: which tet faces are shared by two tets and which lie on the boundary."""
import numpy as np

# face k of a tet is the one opposite its corner k
OPPOSITE = np.array([[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]])


def matched_faces(tets):
    """Faces shared by two tets: (slots (F,2) as tet*4 + face, face node ids (F,3) sorted), and a (M,4) mask of
    boundary faces (shared by no other tet). Deterministic: pairs come in lexicographic order of the face nodes."""
    faces = np.sort(np.asarray(tets)[:, OPPOSITE], axis=2).reshape(-1, 3)
    slot = np.arange(len(faces))
    order = np.lexsort((slot, faces[:, 2], faces[:, 1], faces[:, 0]))
    f = faces[order]
    same = np.flatnonzero(np.all(f[1:] == f[:-1], axis=1))
    pairs = np.stack([order[same], order[same + 1]], axis=1)
    boundary = np.ones(len(faces), bool)
    boundary[pairs.reshape(-1)] = False
    return pairs, f[same], boundary.reshape(-1, 4)
