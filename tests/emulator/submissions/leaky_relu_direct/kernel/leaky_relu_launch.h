#ifndef LEAKY_RELU_LAUNCH_H
#define LEAKY_RELU_LAUNCH_H
#include <cstdint>

#ifndef GM_ADDR
#define GM_ADDR void*
#endif

struct LeakyReluTiling {
    uint32_t blockDim;
    uint32_t perCore;  // elements per core
    uint32_t tile;     // elements per UB tile
};

LeakyReluTiling leaky_relu_tiling(uint32_t total, uint32_t elemBytes);

extern "C" {
void launch_leaky_relu_float(GM_ADDR x, GM_ADDR y, uint32_t total, float slope, const LeakyReluTiling* t, void* stream);
void launch_leaky_relu_half(GM_ADDR x, GM_ADDR y, uint32_t total, float slope, const LeakyReluTiling* t, void* stream);
}
#endif
