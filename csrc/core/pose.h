/* Pose math used to bake animations onto rigs whose rest pose has
 * rotations (see pose.c). */
#ifndef GAMEANIM_POSE_H
#define GAMEANIM_POSE_H

void ga_mat_identity(double m[16]);
void ga_mat_mul(const double a[16], const double b[16], double out[16]);
/* w, x, y, z of the rotation Rz * Ry * Rx (Blender Euler 'XYZ'). */
void ga_quat_from_euler_xyz(const double e[3], double q[4]);
/* T(t) * R(q) * S(s); q is normalised first. */
void ga_mat_from_trs(const double t[3], const double q[4], const double s[3], double m[16]);
/* Inverse of ga_mat_from_trs for matrices without shear. */
void ga_mat_decompose(const double m[16], double t[3], double q[4], double s[3]);

/* Inverse of a 4x4 matrix; 0 when singular. */
int ga_mat_invert(const double m[16], double out[16]);
/* Quaternion of Euler angles in a Blender rotation order ("XYZ" ... "ZYX":
 * the axes in the order they are applied).  0 for a bad order string. */
int ga_quat_from_euler(const double e[3], const char *order, double q[4]);
/* Euler XYZ angles of the rotation part of m; with have_prev, the
 * equivalent angles closest to prev (no jumps of 2*pi, no flips). */
void ga_euler_xyz_from_mat(const double m[16], const double prev[3], int have_prev, double e[3]);

#endif
