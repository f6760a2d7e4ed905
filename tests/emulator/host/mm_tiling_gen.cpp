// The host side of a Matmul-API operator: MultiCoreMatmulTiling makes the TCubeTiling, written to
// stdout as the bytes the kernel's tiling argument carries (as a TilingFunc would save them).
// usage: mm_tiling_gen M N K DTYPE TRANS_B BIAS DIM [BASE_M BASE_N]
//   DTYPE 0 half -> float, 1 bfloat16 -> float, 2 float -> float, 3 int8 -> int32
#include <cstdio>
#include <cstdlib>

#include "tiling/tiling_api.h"

using namespace matmul_tiling;

int main(int argc, char** argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: %s M N K DTYPE TRANS_B BIAS DIM [BASE_M BASE_N]\n", argv[0]);
        return 2;
    }
    const int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]), dtype = atoi(argv[4]);
    const bool transB = atoi(argv[5]) != 0, bias = atoi(argv[6]) != 0;
    const int dim = atoi(argv[7]);
    const DataType in[] = {DataType::DT_FLOAT16, DataType::DT_BF16, DataType::DT_FLOAT, DataType::DT_INT8};
    const DataType out = dtype == 3 ? DataType::DT_INT32 : DataType::DT_FLOAT;

    MultiCoreMatmulTiling tiling;
    tiling.SetDim(dim);
    tiling.SetAType(TPosition::GM, CubeFormat::ND, in[dtype]);
    tiling.SetBType(TPosition::GM, CubeFormat::ND, in[dtype], transB);
    tiling.SetCType(TPosition::GM, CubeFormat::ND, out);
    tiling.SetBiasType(TPosition::GM, CubeFormat::ND, out);
    tiling.SetShape(m, n, k);
    tiling.SetOrgShape(m, n, k);
    tiling.SetBias(bias);
    tiling.SetBufferSpace(-1, -1, -1);
    if (argc >= 10) tiling.SetFixSplit(atoi(argv[8]), atoi(argv[9]), -1);

    optiling::TCubeTiling data;
    if (tiling.GetTiling(data) == -1) return 1;
    unsigned char buf[sizeof(data)];
    data.SaveToBuffer(buf, sizeof(buf));
    fwrite(buf, 1, data.GetDataSize(), stdout);
    fprintf(stderr, "usedCoreNum=%d singleCoreM=%d singleCoreN=%d baseM=%d baseN=%d baseK=%d depthA1=%d stepKa=%d\n", data.get_usedCoreNum(),
            data.get_singleCoreM(), data.get_singleCoreN(), data.get_baseM(), data.get_baseN(), data.get_baseK(), data.get_depthA1(),
            data.get_stepKa());
    return 0;
}
