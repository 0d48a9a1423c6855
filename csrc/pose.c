/* Pose math for baking: local transforms from channel values, 4x4
 * products, and the decomposition of a pose basis into location,
 * quaternion and scale.  Matrices are row-major 4x4 doubles acting on
 * column vectors (Blender's convention). */
#include "pose.h"

#include <math.h>
#include <string.h>

void ga_mat_identity(double m[16])
{
    memset(m, 0, 16 * sizeof(double));
    m[0] = m[5] = m[10] = m[15] = 1.0;
}

void ga_mat_mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++) s += a[i * 4 + k] * b[k * 4 + j];
            r[i * 4 + j] = s;
        }
    memcpy(out, r, sizeof r);
}

void ga_quat_from_euler_xyz(const double e[3], double q[4])
{
    /* R = Rz * Ry * Rx (X applied first): Blender's 'XYZ' mode */
    double cx = cos(e[0] * 0.5), sx = sin(e[0] * 0.5);
    double cy = cos(e[1] * 0.5), sy = sin(e[1] * 0.5);
    double cz = cos(e[2] * 0.5), sz = sin(e[2] * 0.5);
    q[0] = cz * cy * cx + sz * sy * sx;
    q[1] = cz * cy * sx - sz * sy * cx;
    q[2] = cz * sy * cx + sz * cy * sx;
    q[3] = sz * cy * cx - cz * sy * sx;
}

void ga_mat_from_trs(const double t[3], const double q_in[4], const double s[3], double m[16])
{
    double q[4] = {q_in[0], q_in[1], q_in[2], q_in[3]};
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0.0) {
        for (int i = 0; i < 4; i++) q[i] /= n;
    } else {
        q[0] = 1.0;
        q[1] = q[2] = q[3] = 0.0;
    }
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double r[9] = {
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
        2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y),
    };
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) m[i * 4 + j] = r[i * 3 + j] * s[j]; /* T * R * S */
        m[i * 4 + 3] = t[i];
    }
    m[12] = m[13] = m[14] = 0.0;
    m[15] = 1.0;
}

static void quat_from_rot(const double r[9], double q[4])
{
    /* Shepperd's method: pick the largest diagonal combination. */
    double tr = r[0] + r[4] + r[8];
    if (tr > 0.0) {
        double s = sqrt(tr + 1.0) * 2.0;
        q[0] = 0.25 * s;
        q[1] = (r[7] - r[5]) / s;
        q[2] = (r[2] - r[6]) / s;
        q[3] = (r[3] - r[1]) / s;
    } else if (r[0] > r[4] && r[0] > r[8]) {
        double s = sqrt(1.0 + r[0] - r[4] - r[8]) * 2.0;
        q[0] = (r[7] - r[5]) / s;
        q[1] = 0.25 * s;
        q[2] = (r[1] + r[3]) / s;
        q[3] = (r[2] + r[6]) / s;
    } else if (r[4] > r[8]) {
        double s = sqrt(1.0 + r[4] - r[0] - r[8]) * 2.0;
        q[0] = (r[2] - r[6]) / s;
        q[1] = (r[1] + r[3]) / s;
        q[2] = 0.25 * s;
        q[3] = (r[5] + r[7]) / s;
    } else {
        double s = sqrt(1.0 + r[8] - r[0] - r[4]) * 2.0;
        q[0] = (r[3] - r[1]) / s;
        q[1] = (r[2] + r[6]) / s;
        q[2] = (r[5] + r[7]) / s;
        q[3] = 0.25 * s;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0.0)
        for (int i = 0; i < 4; i++) q[i] /= n;
}

void ga_mat_decompose(const double m[16], double t[3], double q[4], double s[3])
{
    /* Column lengths are the scale; a negative determinant flips X, as
     * Blender's mat3_to_rot_size does. */
    double c[3][3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) c[j][i] = m[i * 4 + j];
    for (int j = 0; j < 3; j++) s[j] = sqrt(c[j][0] * c[j][0] + c[j][1] * c[j][1] + c[j][2] * c[j][2]);
    double det = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) - c[1][0] * (c[0][1] * c[2][2] - c[0][2] * c[2][1]) +
                 c[2][0] * (c[0][1] * c[1][2] - c[0][2] * c[1][1]);
    if (det < 0.0) s[0] = -s[0];
    double r[9];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) r[i * 3 + j] = s[j] != 0.0 ? c[j][i] / s[j] : (i == j ? 1.0 : 0.0);
    quat_from_rot(r, q);
    for (int i = 0; i < 3; i++) t[i] = m[i * 4 + 3];
}
