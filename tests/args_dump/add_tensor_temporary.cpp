// expect: deleted
// A tensor's buffer is read when the task is captured: a temporary view would dangle.
#include "dfx/collect/task_args.hpp"

int main() {
    dfx::task_args<> args;
#ifdef DFX_COMPILE_FAIL
    return args.add_input(dfx::tensor_view{}) ? 0 : 1;
#else
    const dfx::tensor_view a{};
    return args.add_input(a) ? 0 : 1;
#endif
}
