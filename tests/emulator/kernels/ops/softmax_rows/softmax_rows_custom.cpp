// Host side of SoftmaxRowsCustom: y = softmax(x, dim=-1) for a [rows, cols] half or float x, and
// each row's max and sum as one 32-B block of floats. The rows are split evenly over the cores;
// every core runs the high-level SoftMax on a block of rows at a time, with the minimum temporary
// buffer the host function reports.
#include <cstdint>
#include "softmax_rows_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_api.h"

namespace optiling {
constexpr uint32_t ROWS_PER_STEP = 4;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    SoftmaxRowsCustomTilingData tiling;
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    const uint32_t rows = uint32_t(x.GetDim(0)), cols = uint32_t(x.GetDim(1));
    const uint32_t typeSize = context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT16 ? 2 : 4;
    const uint32_t cores = rows / ROWS_PER_STEP < 8 ? rows / ROWS_PER_STEP : 8;
    if (cores == 0 || rows % (cores * ROWS_PER_STEP) != 0 || (cols * typeSize) % 32 != 0) {
        return ge::GRAPH_FAILED;
    }
    const ge::Shape step({int64_t(ROWS_PER_STEP), int64_t(cols)});
    const uint32_t tmpBytes = AscendC::GetSoftMaxMinTmpSize(step, typeSize, false);
    AscendC::SoftMaxTilingFunc(step, typeSize, tmpBytes, tiling.softmax);
    tiling.set_rowsPerCore(rows / cores);
    tiling.set_cols(cols);
    tiling.set_tmpBytes(tmpBytes);
    context->SetBlockDim(cores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    *context->GetWorkspaceSizes(1) = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class SoftmaxRowsCustom : public OpDef {
public:
    explicit SoftmaxRowsCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("rowmax").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("rowsum").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(SoftmaxRowsCustom);
}  // namespace ops
