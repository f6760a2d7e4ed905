// Tiling data of PadRowsCustom: the Pad and UnPad tilings of the high-level APIs as struct fields.
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(PadRowsCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, height);
  TILING_DATA_FIELD_DEF(uint32_t, width);
  TILING_DATA_FIELD_DEF(float, value);
  TILING_DATA_FIELD_DEF_STRUCT(PadTiling, padTiling);
  TILING_DATA_FIELD_DEF_STRUCT(UnPadTiling, unpadTiling);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(PadRowsCustom, PadRowsCustomTilingData)
}  // namespace optiling
