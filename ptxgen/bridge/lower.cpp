// pg_lower: the IR rewrites before libclc, in order (split from bridge.cpp; the rewrites are in
// abi.cpp, builtins.cpp and libclc_fixes.cpp).
#include "bridge.h"

using namespace llvm;

extern "C" {

// Returns 0 ok, 1 failure (log says why).
int pg_lower(LLVMModuleRef mref, char **log) {
  return guarded(log, 1, "internal error in the IR rewrites", [&] {
    Module &M = *unwrap(mref);
    freshAnnotations(M);  // a module freed earlier may have had this address
    // With PTXGEN_VERIFY_EACH=1 every rewrite below is followed by the verifier (step,
    // verifyAfter); the input first, so that a failure names the rewrite and not what came before.
    verifyAfter(M, "the front end and pg_define_half (before pg_lower)");
    step(M, "defineLinearIds", defineLinearIds);
    step(M, "tagRelaxedDivisions", tagRelaxedDivisions);
    step(M, "relaxRootsAndQuotients", relaxRootsAndQuotients);
    bool needOffset = used(M, "_Z17get_global_offsetj") || used(M, "_Z13get_global_idj");
    bool needDim = used(M, "_Z12get_work_dimv");
    bool needGroups = used(M, "_Z12get_group_idj") || used(M, "_Z14get_num_groupsj") ||
                      used(M, "_Z15get_global_sizej") || used(M, "_Z13get_global_idj");
    std::vector<Function *> ks = kernelsOf(M);
    for (Function *F : ks) detachKernelCalls(F);
    verifyAfter(M, "detachKernelCalls");
    for (Function *F : ks) {
      Function *NF = rewriteKernel(M, F, needOffset, needDim, needGroups);
      verifyAfter(M, "rewriteKernel");
      alignKernelPointerArgs(NF);
      if (!hasKernelAnnotation(M, NF)) addAnnotation(M, NF, "kernel", 1);
      // reqd_work_group_size(X, Y, Z) bounds the block at X*Y*Z threads (.maxntid), not to
      // exactly X, Y, Z (.reqntid): an NDRange of fewer dimensions runs with 1 in the others
      // (the CTS's null_required_work_group_size launches a (2,3,4) kernel as (2,1,1) in 1-D).
      if (MDNode *R = NF->getMetadata("reqd_work_group_size"); R && R->getNumOperands() == 3) {
        unsigned total = 1;
        for (int d = 0; d < 3; d++)
          if (auto *CI = mdconst::dyn_extract<ConstantInt>(R->getOperand(d)))
            total *= std::max<unsigned>(1, (unsigned)CI->getZExtValue());
        addAnnotation(M, NF, "maxntidx", total);
        addAnnotation(M, NF, "maxntidy", 1);
        addAnnotation(M, NF, "maxntidz", 1);
      }
      verifyAfter(M, "alignKernelPointerArgs and the kernel annotations");
    }
    step(M, "defineIdFunctions",
         [&](Module &Mod) { defineIdFunctions(Mod, needOffset, needDim, needGroups); });
    step(M, "defineMacroBuiltins", defineMacroBuiltins);
    step(M, "defineMissingBuiltins", defineMissingBuiltins);
    step(M, "defineSmoothstep", defineSmoothstep);
    step(M, "defineRoundingConversions", defineRoundingConversions);
    step(M, "defineSaturatingConversions", defineSaturatingConversions);
    step(M, "fixMathCalls", fixMathCalls);
    step(M, "fixFrexpTgammaCalls", fixFrexpTgammaCalls);
    step(M, "fixFloatSubnormalCalls", fixFloatSubnormalCalls);
    step(M, "fixTgammaDouble", fixTgammaDouble);
    step(M, "defineLdexpDouble", defineLdexpDouble);
    step(M, "defineVstoreHalfDirected", defineVstoreHalfDirected);
    step(M, "lowerPrintf", lowerPrintf);
    return invalidIR(M, "the cudacl rewrites", log) ? 1 : 0;
  });
}

} // extern "C"
