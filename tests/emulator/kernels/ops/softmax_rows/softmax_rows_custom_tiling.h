// Tiling data of SoftmaxRowsCustom: the SoftMax high-level API's tiling as a struct field.
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftmaxRowsCustomTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
  TILING_DATA_FIELD_DEF(uint32_t, cols);
  TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);
  TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmax);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SoftmaxRowsCustom, SoftmaxRowsCustomTilingData)
}  // namespace optiling
