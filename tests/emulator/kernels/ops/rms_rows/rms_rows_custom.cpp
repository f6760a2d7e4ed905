// Host side of RmsRowsCustom: y = x / sqrt(mean(x^2, dim=-1) + eps) * gamma for a float [rows, cols]
// x, one core, all rows at once through the high-level RmsNorm with its host tiling.
#include <cstdint>
#include "rms_rows_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_api.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    RmsRowsCustomTilingData tiling;
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    const uint32_t rows = uint32_t(x.GetDim(0)), cols = uint32_t(x.GetDim(1));
    const ge::Shape shape({1, int64_t(rows), int64_t(cols)});
    uint32_t maxTmp = 0, minTmp = 0;
    if (!AscendC::GetRmsNormMaxMinTmpSize(shape, sizeof(float), maxTmp, minTmp) ||
        !AscendC::GetRmsNormTilingInfo(shape, shape, minTmp, sizeof(float), tiling.rms)) {
        return ge::GRAPH_FAILED;
    }
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_tmpBytes(minTmp);
    tiling.set_epsilon(*context->GetAttrs()->GetFloat(0));
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    *context->GetWorkspaceSizes(1) = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class RmsRowsCustom : public OpDef {
public:
    explicit RmsRowsCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("gamma").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-5f);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(RmsRowsCustom);
}  // namespace ops
