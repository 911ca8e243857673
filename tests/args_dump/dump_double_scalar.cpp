// expect: only 32-bit float scalars can be dumped (DataType has no FLOAT64)
// The reference tags a double FLOAT32 and prints a wrong value; we refuse it.
#include "dfx/collect/task_args.hpp"

int main() {
    dfx::task_args<> args;
#ifdef DFX_COMPILE_FAIL
    double scale = 0.5;
#else
    float scale = 0.5f;
#endif
    return args.add_scalar(scale) ? 0 : 1;
}
