/* Pose math for baking: local transforms from channel values, 4x4
 * products, and the decomposition of a pose basis into location,
 * quaternion and scale.  Matrices are row-major 4x4 doubles acting on
 * column vectors (Blender's convention). */
#include "pose.h"
#include "trig.h"

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
    double cx = ga_cos(e[0] * 0.5), sx = ga_sin(e[0] * 0.5);
    double cy = ga_cos(e[1] * 0.5), sy = ga_sin(e[1] * 0.5);
    double cz = ga_cos(e[2] * 0.5), sz = ga_sin(e[2] * 0.5);
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

/* General 4x4 inverse (Gauss-Jordan with partial pivoting).  Returns 0 when
 * the matrix is singular. */
int ga_mat_invert(const double m[16], double out[16])
{
    double a[4][8];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) a[i][j] = j < 4 ? m[i * 4 + j] : (j - 4 == i ? 1.0 : 0.0);
    for (int c = 0; c < 4; c++) {
        int p = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(a[r][c]) > fabs(a[p][c])) p = r;
        if (fabs(a[p][c]) < 1e-300) return 0;
        if (p != c)
            for (int j = 0; j < 8; j++) {
                double t = a[c][j];
                a[c][j] = a[p][j];
                a[p][j] = t;
            }
        double d = a[c][c];
        for (int j = 0; j < 8; j++) a[c][j] /= d;
        for (int r = 0; r < 4; r++) {
            if (r == c) continue;
            double f = a[r][c];
            if (f != 0.0)
                for (int j = 0; j < 8; j++) a[r][j] -= f * a[c][j];
        }
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) out[i * 4 + j] = a[i][j + 4];
    return 1;
}

static void quat_mul(const double a[4], const double b[4], double o[4])
{
    double r[4] = {
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    };
    memcpy(o, r, sizeof r);
}

int ga_quat_from_euler(const double e[3], const char *order, double q[4])
{
    /* order names the axes in the order they are applied (Blender's
     * rotation_mode): "XYZ" is R = Rz * Ry * Rx. */
    q[0] = 1.0;
    q[1] = q[2] = q[3] = 0.0;
    for (int k = 0; k < 3; k++) {
        int axis = order[k] - 'X';
        if (axis < 0 || axis > 2) return 0;
        double h = e[axis] * 0.5;
        double r[4] = {ga_cos(h), 0.0, 0.0, 0.0};
        r[1 + axis] = ga_sin(h);
        quat_mul(r, q, q); /* later axes multiply from the left */
    }
    return 1;
}

static double wrap_near(double a, double ref)
{
    const double tau = 6.283185307179586476925286766559;
    return a + tau * nearbyint((ref - a) / tau);
}

void ga_euler_xyz_from_mat(const double m[16], const double prev[3], int have_prev, double e[3])
{
    /* m's 3x3 part must be a pure rotation; R = Rz Ry Rx */
    double r20 = m[8], r21 = m[9], r22 = m[10], r10 = m[4], r00 = m[0];
    double cy = sqrt(r00 * r00 + r10 * r10);
    double a[3], b[3];
    if (cy > 1e-9) {
        a[0] = ga_atan2(r21, r22);
        a[1] = ga_atan2(-r20, cy);
        a[2] = ga_atan2(r10, r00);
    } else { /* gimbal lock: put everything in X, keep Z at 0 */
        a[0] = ga_atan2(-m[6], m[5]);
        a[1] = ga_atan2(-r20, cy);
        a[2] = 0.0;
    }
    const double pi = 3.14159265358979323846;
    b[0] = a[0] + pi;
    b[1] = pi - a[1];
    b[2] = a[2] + pi;
    if (!have_prev) {
        memcpy(e, a, sizeof a);
        return;
    }
    double da = 0.0, db = 0.0;
    for (int i = 0; i < 3; i++) {
        a[i] = wrap_near(a[i], prev[i]);
        b[i] = wrap_near(b[i], prev[i]);
        da += fabs(a[i] - prev[i]);
        db += fabs(b[i] - prev[i]);
    }
    memcpy(e, db < da ? b : a, sizeof a);
}
