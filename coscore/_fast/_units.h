/*
 * A kernel "unit": one atom kernel (or one scan shared by several SM atoms)
 * that batch.distinct_texts runs on each new distinct text the moment it finds
 * it, while the text is still in cache, instead of in a pass of its own later.
 *
 * The kernel modules fill these (substring.pyx, lcs.pyx) and keep them alive;
 * batch.pyx only calls run(). run() needs no GIL and touches no reference
 * count; `scratch` is the caller's (scratch_bytes, 64-byte aligned), and the
 * unit writes its k results for the text at out[0], out[stride], ...
 */
#ifndef COSCORE_FAST_UNITS_H
#define COSCORE_FAST_UNITS_H

#include <Python.h>
#include <stdlib.h>

#if defined(__GNUC__) || defined(__clang__)
#  define CS_UNITS_STATIC static __attribute__((unused))
#else
#  define CS_UNITS_STATIC static
#endif
#define CS_UNITS_INLINE CS_UNITS_STATIC inline

typedef struct cs_unit {
    void (*run)(const struct cs_unit *u, int kind, const void *data, Py_ssize_t n,
                unsigned char *scratch, double *out, Py_ssize_t stride);
    const void *kernel;          /* the scorer's C state (cs_sa, cs_lcs) */
    Py_ssize_t scratch_bytes;
    Py_ssize_t k;                /* results per text */
    /* SM: groups -> slot (-1: none) and -> result index (see count_many_parts) */
    Py_ssize_t n_groups, n_slots;
    const Py_ssize_t *group_slot, *part_of;
} cs_unit;

#define CS_UNIT_CAPSULE "coscore._fast.unit"

CS_UNITS_INLINE void cs_unit_call(const cs_unit *u, int kind, const void *data, Py_ssize_t n,
                                  unsigned char *scratch, double *out, Py_ssize_t stride)
{
    u->run(u, kind, data, n, scratch, out, stride);
}

/* A unit handed to Python: a capsule that owns the unit, the arrays it points
 * to, and a reference to the scorer whose C state it reads. */
typedef struct {
    cs_unit u;              /* first: the capsule's pointer is the unit's */
    PyObject *owner;
    Py_ssize_t *arrays;
} cs_unit_box;

CS_UNITS_STATIC void cs_unit_box_free(PyObject *capsule)
{
    cs_unit_box *b = (cs_unit_box *)PyCapsule_GetPointer(capsule, CS_UNIT_CAPSULE);
    if (!b) { PyErr_Clear(); return; }
    Py_XDECREF(b->owner);
    free(b->arrays);
    free(b);
}

/* The capsule for a filled box (NULL with an exception set; the box is then freed). */
CS_UNITS_STATIC PyObject *cs_unit_capsule(cs_unit_box *b, PyObject *owner)
{
    PyObject *capsule;
    Py_INCREF(owner);
    b->owner = owner;
    capsule = PyCapsule_New(b, CS_UNIT_CAPSULE, cs_unit_box_free);
    if (!capsule) { Py_DECREF(owner); free(b->arrays); free(b); }
    return capsule;
}

#endif /* COSCORE_FAST_UNITS_H */
