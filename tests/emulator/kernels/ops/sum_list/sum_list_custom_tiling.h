// Tiling data of SumListCustom.
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SumListCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, perCore);  // elements of every tensor each core sums
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SumListCustom, SumListCustomTilingData)
}  // namespace optiling
