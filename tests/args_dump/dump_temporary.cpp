// expect: pass the variables that were added (lvalues); a temporary has no identity to match
// dump() matches by address; a temporary's address matches nothing that was added.
#include "dfx/collect/task_args.hpp"

int main() {
    dfx::task_args<> args;
    float alpha = 0.5f;
    args.add_scalar(alpha);
#ifdef DFX_COMPILE_FAIL
    return args.dump(0.5f) ? 0 : 1;
#else
    return args.dump(alpha) ? 0 : 1;
#endif
}
