// Tiling data of AxpbyCustom (z = alpha * x + y), in the msopgen project's TilingData form.
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AxpbyCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);  // elements of x
  TILING_DATA_FIELD_DEF(uint32_t, blockLength);  // elements per core
  TILING_DATA_FIELD_DEF(uint32_t, tileLength);   // elements per UB tile
  TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AxpbyCustom, AxpbyCustomTilingData)
}  // namespace optiling
