"""Geometry primitives: segments, angles, circles and their printed labels in a geometry figure."""

from vision_tools.geometry.primitives import Angle, GeometryResult, Segment, geometry_primitives

__all__ = ["Angle", "GeometryResult", "Segment", "geometry_primitives"]
