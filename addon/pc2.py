"""PC2 point-cache writer: the format Blender's Mesh Cache modifier reads (float32 positions per sample)."""
import struct

import numpy as np


def write_pc2(path, samples, start_frame, sample_rate=1.0):
    """Write samples (F, n, 3) as a PC2 file starting at `start_frame`, one sample per `sample_rate` frames."""
    samples = np.ascontiguousarray(samples, "<f4")
    if samples.ndim != 3 or samples.shape[2] != 3 or len(samples) == 0:
        raise ValueError(f"PC2 samples must have shape (frames, points, 3), got {samples.shape}")
    header = struct.pack("<12siiffi", b"POINTCACHE2\0", 1, samples.shape[1], float(start_frame),
                         float(sample_rate), samples.shape[0])
    with open(path, "wb") as f:
        f.write(header)
        f.write(samples.tobytes())


def read_pc2(path):
    """(start_frame, sample_rate, samples (F, n, 3) float32) of a PC2 file."""
    with open(path, "rb") as f:
        data = f.read()
    magic, _version, points, start, rate, count = struct.unpack_from("<12siiffi", data, 0)
    if magic != b"POINTCACHE2\0":
        raise ValueError("not a PC2 file")
    samples = np.frombuffer(data, "<f4", count * points * 3, 32).reshape(count, points, 3)
    return start, rate, samples
