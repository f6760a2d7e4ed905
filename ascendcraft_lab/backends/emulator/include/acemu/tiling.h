// Tiling data: the legacy BEGIN_TILING_DATA_DEF family and the plain-struct style of newer CANN.
#pragma once
#include <cstring>

// A tiling class is a plain C struct (natural alignment), so the host can pack it byte for byte.
// @api BEGIN_TILING_DATA_DEF, TILING_DATA_FIELD_DEF, TILING_DATA_FIELD_DEF_ARR, TILING_DATA_FIELD_DEF_STRUCT, END_TILING_DATA_DEF, REGISTER_TILING_DATA_CLASS | yes | TilingData structure
#define BEGIN_TILING_DATA_DEF(name) struct name {
#define TILING_DATA_FIELD_DEF(type, field)                  \
    type field = type();                                    \
    void set_##field(type acemu_v) { field = acemu_v; }     \
    type get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_ARR(type, n, field)                                                   \
    type field[n] = {};                                                                             \
    void set_##field(const type* acemu_v) { std::memcpy(field, acemu_v, sizeof(field)); }           \
    const type* get_##field() const { return field; }
#define TILING_DATA_FIELD_DEF_STRUCT(type, field) type field;
#define END_TILING_DATA_DEF                                                                          \
    void SaveToBuffer(void* acemu_p, size_t acemu_cap) const {                                       \
        std::memcpy(acemu_p, this, sizeof(*this) < acemu_cap ? sizeof(*this) : acemu_cap);           \
    }                                                                                                \
    size_t GetDataSize() const { return sizeof(*this); }                                             \
    }
// At global scope these name the struct GET_TILING_DATA reads (inside a namespace, use
// GET_TILING_DATA_WITH_STRUCT instead).
#define REGISTER_TILING_DATA_CLASS(op, cls) using acemu_default_tiling_t = cls;
#define REGISTER_TILING_DEFAULT(cls) using acemu_default_tiling_t = cls;

// @api GET_TILING_DATA, GET_TILING_DATA_WITH_STRUCT, REGISTER_TILING_DEFAULT | yes | GET_TILING_DATA
#define GET_TILING_DATA(var, tiling)                                        \
    acemu_default_tiling_t var;                                             \
    std::memcpy(static_cast<void*>(&var), (const void*)(tiling), sizeof(var))
#define GET_TILING_DATA_WITH_STRUCT(type, var, tiling) \
    type var;                                          \
    std::memcpy(static_cast<void*>(&var), (const void*)(tiling), sizeof(var))
