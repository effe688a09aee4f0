// The optimiser and NVPTX code generation (split from bridge.cpp), with the rewrites that run on
// the optimised module for speed (shared gather addresses, volatile private accesses).
#include "bridge.h"

using namespace llvm;

namespace {

// Neighbouring gathers in conditional blocks: p[a + b], p[a + (b + 1)], ... each behind its own
// bounds test (remap's four bilinear taps). Each block computes its address on its own, and
// NVPTX's SeparateConstOffsetFromGEP splits only those with a constant, sext(a) + sext(b) + 1
// beside sext(a + b): in PTX the taps share nothing, ptxas predicates the loads but keeps four
// address computations (remap: 91 SASS instructions, 81 with the taps sharing one address).
// Here the taps of one p, a and b (an index sext(a +nsw (b +nsw c)), c a constant, at least two
// different c, in more than one block) share one address p + sext(a) + sext(b), made where all
// their blocks meet (before the first tap there, if one is), and each is that address plus c.
// nsw makes the sums equal: sext(x +nsw y) is sext(x) + sext(y) (the 32-bit p + sext(a + b) + c
// would not be: a + b may overflow where a + b + c does not). `a` made in each tap's block (a
// multiply, say) is made once there; a value computed where no tap runs is used only by the
// taps, which compute the same value anyway. Runs on the optimised module, before code
// generation (whose MachineSink would move an address used by one tap only back into its block).
namespace gathers {
struct Tap {
  GetElementPtrInst *gep;
  Value *a, *b;
  int64_t c;
};
// A value's identity for grouping: a binary operation made in several blocks from the same
// operands is one value.
std::tuple<unsigned, Value *, Value *, unsigned> identity(Value *v) {
  if (auto *bo = dyn_cast<BinaryOperator>(v))
    return {bo->getOpcode(), bo->getOperand(0), bo->getOperand(1),
            (unsigned)bo->hasNoSignedWrap() | (unsigned)bo->hasNoUnsignedWrap() << 1};
  return {0, v, nullptr, 0};
}
// v, or a copy of v made before `at` from operands available there; null if neither is possible.
Value *availableAt(Value *v, Instruction *at, DominatorTree &DT) {
  auto *I = dyn_cast<Instruction>(v);
  if (!I || DT.dominates(I, at)) return v;
  // Made where the taps' blocks meet, so possibly on a path that did not compute it: only an
  // operation that cannot trap (not a division).
  auto *bo = dyn_cast<BinaryOperator>(I);
  if (!bo || !isSafeToSpeculativelyExecute(bo)) return nullptr;
  for (Value *op : bo->operands())
    if (auto *oi = dyn_cast<Instruction>(op); oi && !DT.dominates(oi, at)) return nullptr;
  Instruction *copy = bo->clone();
  copy->insertBefore(at);
  return copy;
}
} // namespace gathers

} // namespace

void shareGatherAddresses(Module &M) {
  using namespace gathers;
  for (Function &F : M) {
    if (F.isDeclaration()) continue;
    // (pointer, element type, identity of a, b) -> taps; the groups in program order (the PTX
    // must not depend on where values lie in memory).
    using Key = std::tuple<Value *, Type *, std::tuple<unsigned, Value *, Value *, unsigned>, Value *>;
    std::map<Key, size_t> index;
    std::vector<std::pair<Key, std::vector<Tap>>> groups;
    for (Instruction &I : instructions(F)) {
      auto *G = dyn_cast<GetElementPtrInst>(&I);
      if (!G || G->getNumIndices() != 1) continue;
      auto *S = dyn_cast<SExtInst>(G->getOperand(1));
      if (!S || !S->getSrcTy()->isIntegerTy(32) || !S->getDestTy()->isIntegerTy(64)) continue;
      auto *add = dyn_cast<BinaryOperator>(S->getOperand(0));
      if (!add || add->getOpcode() != Instruction::Add || !add->hasNoSignedWrap()) continue;
      for (int swap = 0; swap < 2; swap++) {
        Value *a = add->getOperand(swap), *t = add->getOperand(1 - swap), *b = t;
        int64_t c = 0;
        auto *inner = dyn_cast<BinaryOperator>(t);
        if (inner && inner->getOpcode() == Instruction::Add && inner->hasNoSignedWrap())
          if (auto *k = dyn_cast<ConstantInt>(inner->getOperand(1))) b = inner->getOperand(0), c = k->getSExtValue();
        Key key{G->getPointerOperand(), G->getSourceElementType(), identity(a), b};
        auto [it, fresh] = index.try_emplace(key, groups.size());
        if (fresh) groups.push_back({key, {}});
        groups[it->second].second.push_back({G, a, b, c});
      }
    }
    DominatorTree DT(F);
    SmallPtrSet<GetElementPtrInst *, 8> done;
    std::vector<Instruction *> dead;
    for (auto &[key, taps] : groups) {
      std::vector<Tap> live;
      for (const Tap &t : taps)
        if (!done.count(t.gep)) live.push_back(t);
      if (live.size() < 2) continue;
      bool twoOffsets = false, twoBlocks = false;
      BasicBlock *meet = live[0].gep->getParent();
      for (const Tap &t : live) {
        twoOffsets |= t.c != live[0].c;
        twoBlocks |= t.gep->getParent() != live[0].gep->getParent();
        meet = DT.findNearestCommonDominator(meet, t.gep->getParent());
      }
      if (!twoOffsets || !twoBlocks || !meet) continue;
      // Before the meeting block's end, or before its first tap where one lies in it.
      Instruction *at = meet->getTerminator();
      for (const Tap &t : live)
        if (t.gep->getParent() == meet && t.gep->comesBefore(at)) at = t.gep;
      Value *p = std::get<0>(key);
      if (auto *pi = dyn_cast<Instruction>(p); pi && !DT.dominates(pi, at)) continue;
      // a first (it may be a copy made here), then b.
      Value *a = availableAt(live[0].a, at, DT);
      if (!a) continue;
      Value *b = availableAt(live[0].b, at, DT);
      if (!b) {
        if (a != live[0].a) cast<Instruction>(a)->eraseFromParent();
        continue;
      }
      IRBuilder<> B(at);
      Type *T = std::get<1>(key), *i64 = Type::getInt64Ty(F.getContext());
      Value *row = B.CreateGEP(T, p, B.CreateSExt(a, i64), "gather.row");
      Value *base = B.CreateGEP(T, row, B.CreateSExt(b, i64), "gather.base");
      for (const Tap &t : live) {
        IRBuilder<> TB(t.gep);
        Value *addr = t.c == 0 ? base : TB.CreateGEP(T, base, ConstantInt::get(i64, t.c), "gather.tap");
        t.gep->replaceAllUsesWith(addr);
        done.insert(t.gep);
        dead.push_back(t.gep);
      }
    }
    for (Instruction *I : dead) RecursivelyDeleteTriviallyDeadInstructions(I);
  }
}


namespace {

// A knob of pipeline.rs (PTXGEN_VOLATILE_PRIVATE_LOCAL), set through pg_set_llvm_options.
cl::opt<bool> VolatilePrivateLocal(
    "ptxgen-volatile-private-local", cl::init(false), cl::Hidden,
    cl::desc("volatile accesses of private variables through .local addresses"));

// Volatile loads and stores of a private variable (an alloca) reach the NVPTX back end through
// generic pointers: InferAddressSpaces leaves volatile accesses alone, and PTX has no volatile
// .local access, so they become `ld.volatile` generic, a system-scope strong load in SASS.
// CLBlast's Xgemm reads its `volatile int tid` so twice per tile. Only this work-item can see
// its private memory, so an access through the .local address (what NVPTX emits for a volatile
// local access: a plain ld.local/st.local, still kept and in order) is what `volatile` asks for.
void volatilePrivateToLocal(Module &M) {
  constexpr unsigned kLocalAS = 5;
  for (Function &F : M) {
    for (Instruction &I : instructions(F)) {
      Value *P = nullptr;
      if (auto *L = dyn_cast<LoadInst>(&I); L && L->isVolatile()) P = L->getPointerOperand();
      if (auto *S = dyn_cast<StoreInst>(&I); S && S->isVolatile()) P = S->getPointerOperand();
      if (!P || P->getType()->getPointerAddressSpace() != 0) continue;
      if (!isa<AllocaInst>(getUnderlyingObject(P, 0))) continue;
      IRBuilder<> B(&I);
      Value *Local = B.CreateAddrSpaceCast(P, PointerType::get(M.getContext(), kLocalAS));
      I.replaceUsesOfWith(P, Local);
    }
  }
}

} // namespace

extern "C" {

// Sets LLVM's own options (`-unroll-threshold=N` ...: the optimiser knobs of pipeline.rs) for
// the whole process, once, before any optimisation: they are global cl::opt variables, read by
// every later build. Parse errors go to the log (never to exit()). Returns 0 ok, 1 failure.
int pg_set_llvm_options(const char *const *args, int count, char **log) {
  return guarded(log, 1, "internal error setting LLVM options", [&] {
    if (count <= 0) return 0;
    std::vector<const char *> argv{"ptxgen"};
    argv.insert(argv.end(), args, args + count);
    std::string err;
    raw_string_ostream os(err);
    if (!cl::ParseCommandLineOptions((int)argv.size(), argv.data(), "", &os)) {
      setLog(log, "error: LLVM options: " + os.str());
      return 1;
    }
    return 0;
  });
}

// opt: 0 (-cl-opt-disable) or 3. Returns 0 ok, 1 failure.
int pg_optimize(LLVMModuleRef mref, int sm, int ptx, int opt, int fastFma, char **log) {
  return guarded(log, 1, "internal error in the optimizer", [&] {
    Module &M = *unwrap(mref);
    freshAnnotations(M);
    std::string err;
    std::unique_ptr<TargetMachine> TM = makeTM(sm, ptx, opt, fastFma, err);
    if (!TM) {
      setLog(log, err);
      return 1;
    }
    M.setDataLayout(TM->createDataLayout());
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    PipelineTuningOptions PTO;
    PassBuilder PB(TM.get(), PTO);
    if (opt != 0) addStrideUnroll(PB);
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    ModulePassManager MPM = opt == 0 ? PB.buildO0DefaultPipeline(OptimizationLevel::O0)
                                     : PB.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
    MPM.run(M, MAM);
    verifyAfter(M, "the optimiser");
    step(M, "forwardImplicitArgs", forwardImplicitArgs);
    if (VolatilePrivateLocal) step(M, "volatilePrivateToLocal", volatilePrivateToLocal);
    return 0;
  });
}

// Returns 0 ok (*ptx malloc'd), 1 failure.
int pg_codegen(LLVMModuleRef mref, int sm, int ptx, int opt, int fastFma, char **ptxOut,
               char **log) {
  return guarded(log, 1, "internal error in NVPTX code generation", [&] {
    Module &M = *unwrap(mref);
    std::string err;
    std::unique_ptr<TargetMachine> TM = makeTM(sm, ptx, opt, fastFma, err);
    if (!TM) {
      setLog(log, err);
      return 1;
    }
    M.setDataLayout(TM->createDataLayout());
    M.setTargetTriple(kTriple);
    step(M, "lowerNativeMath", lowerNativeMath);
    step(M, "lowerRelaxedDivisions", lowerRelaxedDivisions);
    step(M, "splitUnderalignedVectorAccesses", splitUnderalignedVectorAccesses);
    step(M, "scalarizeNarrowVectorCompares", scalarizeNarrowVectorCompares);
    step(M, "splitWideHalfExtends", splitWideHalfExtends);
    step(M, "widenCharPairParams", widenCharPairParams);
    shareGatherAddresses(M);
    if (invalidIR(M, "sharing gather addresses", log)) return 1;
    step(M, "nanToZeroConversions", nanToZeroConversions);
    // The optimiser's answers name functions deleted since, and the kernels replaced above.
    freshAnnotations(M);
    SmallString<0> buf;
    raw_svector_ostream os(buf);
    legacy::PassManager PM;
    if (TM->addPassesToEmitFile(PM, os, nullptr, CodeGenFileType::AssemblyFile)) {
      setLog(log, "the NVPTX target cannot emit PTX");
      return 1;
    }
    PM.run(M);
    *ptxOut = dupString(std::string(buf.str()));
    return 0;
  });
}

} // extern "C"
