// Tiling data of RmsRowsCustom: the RmsNorm high-level API's tiling as a struct field.
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RmsRowsCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, rows);
  TILING_DATA_FIELD_DEF(uint32_t, cols);
  TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);
  TILING_DATA_FIELD_DEF(float, epsilon);
  TILING_DATA_FIELD_DEF_STRUCT(RmsNormTiling, rms);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RmsRowsCustom, RmsRowsCustomTilingData)
}  // namespace optiling
