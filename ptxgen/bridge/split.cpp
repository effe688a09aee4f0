// One module per kernel, for building the kernels of a program on several threads (split.rs;
// split from bridge.cpp).
#include "bridge.h"

using namespace llvm;

namespace {

// Everything `K` needs: the definitions it reaches through its body and global initialisers.
SmallPtrSet<const GlobalValue *, 32> reachableFrom(Function *K) {
  SmallPtrSet<const GlobalValue *, 32> keep;
  std::vector<GlobalValue *> work{K};
  SmallPtrSet<Constant *, 32> seen;
  while (!work.empty()) {
    GlobalValue *G = work.back();
    work.pop_back();
    if (!keep.insert(G).second) continue;
    std::vector<GlobalValue *> refs;
    if (auto *F = dyn_cast<Function>(G)) {
      for (Instruction &I : instructions(*F))
        for (Value *op : I.operands()) collectRefs(op, seen, refs);
    } else if (auto *V = dyn_cast<GlobalVariable>(G)) {
      if (V->hasInitializer()) collectRefs(V->getInitializer(), seen, refs);
    }
    for (GlobalValue *R : refs)
      if (!keep.count(R)) work.push_back(R);
  }
  return keep;
}

} // namespace

extern "C" {

// How M's `count` kernels (in module order) can be split: 1 with weights[i] set to the
// instructions kernel i reaches (how much work its part is likely to be), or 0 when M must be
// built whole (a kernel reaches another kernel, which would then be emitted twice, or `count`
// is not M's kernel count).
int pg_split_weights(LLVMModuleRef mref, long long *weights, int count) {
  return guarded(nullptr, 0, "", [&] {
    std::vector<Function *> ks = kernelsOf(*unwrap(mref));
    if (count < 0 || ks.size() != size_t(count)) return 0;
    for (size_t i = 0; i < ks.size(); i++) {
      long long n = 0;
      for (const GlobalValue *G : reachableFrom(ks[i])) {
        if (G != ks[i] && isa<Function>(G) && isKernel(*cast<Function>(G))) return 0;
        if (auto *F = dyn_cast<Function>(G)) n += (long long)F->getInstructionCount();
      }
      weights[i] = n;
    }
    return 1;
  });
}

// Part number `part` of M: a copy (in M's context) holding the kernels numbered in
// `kernels` (`count` of them) and the definitions they reach, nothing else. Every definition
// but those kernels becomes internal and is renamed with the suffix ".p<part>", so that the
// parts' PTX can be joined without clashes (only identical declarations, such as vprintf's,
// repeat). NULL with a log on failure.
LLVMModuleRef pg_split_part(LLVMModuleRef mref, int part, const int *kernels, int count,
                            char **log) {
  return guarded<LLVMModuleRef>(log, nullptr, "internal error while splitting the program by kernel", [&]() -> LLVMModuleRef {
    Module &M = *unwrap(mref);
    std::vector<Function *> ks = kernelsOf(M);
    std::vector<Function *> mine;
    SmallPtrSet<const GlobalValue *, 32> keep;
    for (int i = 0; i < count; i++) {
      if (kernels[i] < 0 || size_t(kernels[i]) >= ks.size()) {
        setLog(log, "internal error: no kernel to split off");
        return nullptr;
      }
      mine.push_back(ks[size_t(kernels[i])]);
      for (const GlobalValue *G : reachableFrom(mine.back())) keep.insert(G);
    }
    ValueToValueMapTy VM;
    std::unique_ptr<Module> P =
        CloneModule(M, VM, [&](const GlobalValue *G) { return keep.count(G) != 0; });
    // The annotations of the kernels left out refer to mere declarations now.
    if (NamedMDNode *NMD = P->getNamedMetadata("nvvm.annotations")) {
      std::vector<MDNode *> kept;
      for (MDNode *N : NMD->operands()) {
        auto *V = N->getNumOperands() ? dyn_cast_or_null<ValueAsMetadata>(N->getOperand(0).get())
                                      : nullptr;
        auto *G = V ? dyn_cast<GlobalValue>(V->getValue()) : nullptr;
        if (!G || !G->isDeclaration()) kept.push_back(N);
      }
      NMD->clearOperands();
      for (MDNode *N : kept) NMD->addOperand(N);
    }
    // Debug locations (from libclc) would be dropped with a warning when the part is read
    // back, as the module carries no debug-info version; ptxgen emits no debug info anyway.
    StripDebugInfo(*P);
    for (const char *name : {"llvm.used", "llvm.compiler.used"})
      if (GlobalVariable *U = P->getGlobalVariable(name)) U->eraseFromParent();
    std::string suffix = ".p" + std::to_string(part);
    SmallPtrSet<const GlobalValue *, 8> partKernels;
    for (Function *K : mine) partKernels.insert(cast<Function>(VM[K]));
    for (GlobalValue &G : P->global_values()) {
      if (partKernels.count(&G) || G.isDeclaration()) continue;
      G.setLinkage(GlobalValue::InternalLinkage);
      G.setVisibility(GlobalValue::DefaultVisibility);
      if (G.hasName()) G.setName((G.getName() + suffix).str());
    }
    // Declarations nothing uses any more (the other kernels, their callees).
    std::vector<GlobalValue *> dead;
    for (GlobalValue &G : P->global_values())
      if (G.isDeclaration() && G.use_empty() && !(isa<Function>(G) && cast<Function>(G).isIntrinsic()))
        dead.push_back(&G);
    for (GlobalValue *G : dead) G->eraseFromParent();
    if (invalidIR(*P, "splitting off a kernel", log)) return nullptr;
    return wrap(P.release());
  });
}

} // extern "C"
