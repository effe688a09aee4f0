// What LLVM 19's NVPTX back end (or ptxas, or the CUDA driver) gets wrong or lacks, rewritten
// before code generation (split from bridge.cpp); also __constant -> global.
#include "bridge.h"

using namespace llvm;

// llvm.sin/cos/exp/exp2/exp10/log/log2/log10.f32 (libclc's native_* use them) have no PTX
// lowering outside unsafe math; native_* mean the approximate PTX instructions, so call those.
void lowerNativeMath(Module &M) {
  struct R { const char *from; Intrinsic::ID to; float pre; float post; };
  const float LOG2E = 1.4426950408889634f, LN2 = 0.6931471805599453f;
  const float LOG2_10 = 3.321928094887362f, LOG10_2 = 0.3010299956639812f;
  R rs[] = {{"llvm.sin.f32", Intrinsic::nvvm_sin_approx_f, 1.0f, 1.0f},
            {"llvm.cos.f32", Intrinsic::nvvm_cos_approx_f, 1.0f, 1.0f},
            {"llvm.exp2.f32", Intrinsic::nvvm_ex2_approx_f, 1.0f, 1.0f},
            {"llvm.exp.f32", Intrinsic::nvvm_ex2_approx_f, LOG2E, 1.0f},
            {"llvm.exp10.f32", Intrinsic::nvvm_ex2_approx_f, LOG2_10, 1.0f},
            {"llvm.log2.f32", Intrinsic::nvvm_lg2_approx_f, 1.0f, 1.0f},
            {"llvm.log.f32", Intrinsic::nvvm_lg2_approx_f, 1.0f, LN2},
            {"llvm.log10.f32", Intrinsic::nvvm_lg2_approx_f, 1.0f, LOG10_2}};
  for (R &r : rs) {
    Function *F = M.getFunction(r.from);
    if (!F) continue;
    Function *N = Intrinsic::getDeclaration(&M, r.to);
    std::vector<CallInst *> calls;
    for (User *U : F->users())
      if (auto *CI = dyn_cast<CallInst>(U)) calls.push_back(CI);
    for (CallInst *CI : calls) {
      IRBuilder<> B(CI);
      Type *f32 = Type::getFloatTy(M.getContext());
      Value *x = CI->getArgOperand(0);
      if (r.pre != 1.0f) x = B.CreateFMul(x, ConstantFP::get(f32, r.pre));
      Value *v = B.CreateCall(N, {x});
      if (r.post != 1.0f) v = B.CreateFMul(v, ConstantFP::get(f32, r.post));
      CI->replaceAllUsesWith(v);
      CI->eraseFromParent();
    }
  }
}

namespace {

// __constant -> global. NVPTX puts OpenCL's __constant (address space 4) in the constant bank,
// but a __constant kernel argument is an ordinary device pointer (CUdeviceptr) the runtime
// passes, and program-scope __constant data is best kept as initialised .global data too. So
// every address-space-4 pointer type in the module becomes address space 1: globals are
// recreated, functions are cloned with a type remapper, intrinsics re-declared.
struct ConstToGlobal : ValueMapTypeRemapper {
  LLVMContext &C;
  DenseMap<Type *, Type *> cache;
  explicit ConstToGlobal(LLVMContext &C) : C(C) {}
  Type *remapType(Type *T) override {
    auto it = cache.find(T);
    if (it != cache.end()) return it->second;
    Type *R = T;
    if (auto *P = dyn_cast<PointerType>(T)) {
      if (P->getAddressSpace() == AS_CONSTANT) R = PointerType::get(C, 1);
    } else if (auto *V = dyn_cast<VectorType>(T)) {
      R = VectorType::get(remapType(V->getElementType()), V->getElementCount());
    } else if (auto *A = dyn_cast<ArrayType>(T)) {
      R = ArrayType::get(remapType(A->getElementType()), A->getNumElements());
    } else if (auto *F = dyn_cast<FunctionType>(T)) {
      std::vector<Type *> ps;
      for (Type *p : F->params()) ps.push_back(remapType(p));
      R = FunctionType::get(remapType(F->getReturnType()), ps, F->isVarArg());
    } else if (auto *S = dyn_cast<StructType>(T)) {
      if (!S->isOpaque()) {
        std::vector<Type *> es;
        bool changed = false;
        for (Type *e : S->elements()) {
          es.push_back(remapType(e));
          changed |= es.back() != e;
        }
        if (changed) {
          if (S->isLiteral()) R = StructType::get(C, es, S->isPacked());
          else R = StructType::create(C, es, (S->getName() + ".g").str(), S->isPacked());
        }
      }
    }
    cache[T] = R;
    return R;
  }
};

bool usesConstantSpace(Module &M) {
  for (GlobalVariable &G : M.globals())
    if (G.getAddressSpace() == AS_CONSTANT) return true;
  for (Function &F : M) {
    for (Type *T : F.getFunctionType()->params())
      if (T->isPointerTy() && T->getPointerAddressSpace() == AS_CONSTANT) return true;
    for (BasicBlock &BB : F)
      for (Instruction &I : BB) {
        if (I.getType()->isPointerTy() && I.getType()->getPointerAddressSpace() == AS_CONSTANT)
          return true;
        for (Value *op : I.operands())
          if (op->getType()->isPointerTy() && op->getType()->getPointerAddressSpace() == AS_CONSTANT)
            return true;
      }
  }
  return false;
}

} // namespace

void constantToGlobal(Module &M) {
  if (!usesConstantSpace(M)) return;
  LLVMContext &C = M.getContext();
  ConstToGlobal TM(C);
  ValueToValueMapTy VM;
  std::vector<GlobalVariable *> oldGlobals;
  std::vector<std::pair<GlobalVariable *, GlobalVariable *>> newGlobals;
  for (GlobalVariable &G : M.globals()) oldGlobals.push_back(&G);
  for (GlobalVariable *G : oldGlobals) {
    Type *VT = TM.remapType(G->getValueType());
    unsigned AS = G->getAddressSpace() == AS_CONSTANT ? 1 : G->getAddressSpace();
    if (VT == G->getValueType() && AS == G->getAddressSpace()) continue;
    auto *NG = new GlobalVariable(M, VT, G->isConstant(), G->getLinkage(), nullptr,
                                  G->getName() + ".g", nullptr, G->getThreadLocalMode(), AS);
    NG->copyAttributesFrom(G);
    NG->setAlignment(G->getAlign());
    VM[G] = NG;
    newGlobals.push_back({G, NG});
  }
  std::vector<Function *> oldFns;
  for (Function &F : M) oldFns.push_back(&F);
  std::vector<std::pair<Function *, Function *>> newFns;
  for (Function *F : oldFns) {
    auto *FT = cast<FunctionType>(TM.remapType(F->getFunctionType()));
    if (F->isIntrinsic()) {
      if (FT == F->getFunctionType()) continue;
      SmallVector<Type *, 4> tys;
      if (!Intrinsic::getIntrinsicSignature(F, tys)) continue;
      for (Type *&t : tys) t = TM.remapType(t);
      VM[F] = Intrinsic::getDeclaration(&M, F->getIntrinsicID(), tys);
      continue;
    }
    if (F->isDeclaration() && FT == F->getFunctionType()) continue;
    Function *NF = Function::Create(FT, F->getLinkage(), F->getAddressSpace(),
                                    F->getName() + ".g", &M);
    NF->copyAttributesFrom(F);
    VM[F] = NF;
    newFns.push_back({F, NF});
  }
  for (auto &[G, NG] : newGlobals)
    if (G->hasInitializer())
      NG->setInitializer(MapValue(G->getInitializer(), VM, RF_None, &TM));
  for (GlobalVariable *G : oldGlobals)
    if (!VM.count(G) && G->hasInitializer())
      G->setInitializer(MapValue(G->getInitializer(), VM, RF_None, &TM));
  for (auto &[F, NF] : newFns) {
    if (F->isDeclaration()) continue;
    auto NA = NF->arg_begin();
    for (Argument &A : F->args()) {
      NA->setName(A.getName());
      VM[&A] = &*NA++;
    }
    SmallVector<ReturnInst *, 4> rets;
    CloneFunctionInto(NF, F, VM, CloneFunctionChangeType::GlobalChanges, rets, "", nullptr, &TM);
  }
  // nvvm.annotations refer to the kernels.
  if (NamedMDNode *NMD = M.getNamedMetadata("nvvm.annotations")) {
    for (unsigned i = 0; i < NMD->getNumOperands(); i++) {
      MDNode *N = NMD->getOperand(i);
      if (N->getNumOperands() < 1) continue;
      auto *V = dyn_cast_or_null<ValueAsMetadata>(N->getOperand(0).get());
      if (!V) continue;
      auto it = VM.find(V->getValue());
      if (it == VM.end()) continue;
      SmallVector<Metadata *, 4> ops(N->op_begin(), N->op_end());
      ops[0] = ValueAsMetadata::get(it->second);
      NMD->setOperand(i, MDNode::get(C, ops));
    }
  }
  // Drop the old definitions, then give the new ones their names.
  for (auto &[F, NF] : newFns) F->dropAllReferences();
  for (Function *F : oldFns)
    if (F->isIntrinsic() && VM.count(F)) F->dropAllReferences();
  for (auto &[G, NG] : newGlobals) G->dropAllReferences();
  for (auto &[F, NF] : newFns) {
    F->removeDeadConstantUsers();
    std::string name = F->getName().str();
    F->replaceAllUsesWith(NF);
    F->eraseFromParent();
    NF->setName(name);
  }
  for (Function *F : oldFns) {
    auto it = VM.find(F);
    if (F->isIntrinsic() && it != VM.end()) {
      F->removeDeadConstantUsers();
      if (F->use_empty()) F->eraseFromParent();
    }
  }
  for (auto &[G, NG] : newGlobals) {
    G->removeDeadConstantUsers();
    std::string name = G->getName().str();
    if (G->use_empty()) {
      G->eraseFromParent();
      NG->setName(name);
    }
  }
}

void stripTargetAttrs(Module &M) {
  for (Function &F : M) {
    F.removeFnAttr("target-cpu");
    F.removeFnAttr("target-features");
  }
}

// LLVM 19's NVPTX back end lowers `load <16 x i8>` to ld.v4.u32 whatever the load's alignment:
// vload16 of char/uchar at an address that is not 16-aligned (libclc's vload16 loads with align 1)
// faults with a misaligned address on the GPU (piglit's vload-char-* tests). Vector loads and stores
// below their natural alignment are split into element accesses before code generation, which is
// what the back end does itself for the other vector types.
void splitUnderalignedVectorAccesses(Module &M) {
  const DataLayout &DL = M.getDataLayout();
  auto underaligned = [&](Type *T, Align A) {
    auto *VT = dyn_cast<FixedVectorType>(T);
    if (!VT) return false;
    Type *ET = VT->getElementType();
    uint64_t es = DL.getTypeStoreSize(ET).getFixedValue();
    if (es == 0 || ET->getScalarSizeInBits() != es * 8) return false;
    uint64_t natural = std::min<uint64_t>(llvm::bit_floor(DL.getTypeStoreSize(VT).getFixedValue()), 16);
    return A.value() < natural;
  };
  std::vector<Instruction *> work;
  for (Function &F : M)
    for (BasicBlock &BB : F)
      for (Instruction &I : BB) {
        if (auto *L = dyn_cast<LoadInst>(&I)) {
          if (!L->isAtomic() && underaligned(L->getType(), L->getAlign())) work.push_back(L);
        } else if (auto *S = dyn_cast<StoreInst>(&I)) {
          if (!S->isAtomic() && underaligned(S->getValueOperand()->getType(), S->getAlign()))
            work.push_back(S);
        }
      }
  for (Instruction *I : work) {
    IRBuilder<> B(I);
    if (auto *L = dyn_cast<LoadInst>(I)) {
      auto *VT = cast<FixedVectorType>(L->getType());
      Type *ET = VT->getElementType();
      uint64_t es = DL.getTypeStoreSize(ET).getFixedValue();
      Value *v = PoisonValue::get(VT);
      for (unsigned i = 0; i < VT->getNumElements(); i++) {
        Value *p = B.CreateConstInBoundsGEP1_64(ET, L->getPointerOperand(), i);
        Value *e = B.CreateAlignedLoad(ET, p, commonAlignment(L->getAlign(), i * es), L->isVolatile());
        v = B.CreateInsertElement(v, e, (uint64_t)i);
      }
      L->replaceAllUsesWith(v);
      L->eraseFromParent();
    } else {
      auto *S = cast<StoreInst>(I);
      Value *val = S->getValueOperand();
      auto *VT = cast<FixedVectorType>(val->getType());
      Type *ET = VT->getElementType();
      uint64_t es = DL.getTypeStoreSize(ET).getFixedValue();
      for (unsigned i = 0; i < VT->getNumElements(); i++) {
        Value *p = B.CreateConstInBoundsGEP1_64(ET, S->getPointerOperand(), i);
        B.CreateAlignedStore(B.CreateExtractElement(val, (uint64_t)i), p,
                             commonAlignment(S->getAlign(), i * es), S->isVolatile());
      }
      S->eraseFromParent();
    }
  }
}

// LLVM 19's NVPTX back end has no pattern for a compare of packed 16-bit (and 8-bit) vectors
// ("Cannot select: v2i16 = setcc", short2/ushort2 relational and logical operators). Such compares
// are done element by element before code generation; the i1 vector they build is legal.
void scalarizeNarrowVectorCompares(Module &M) {
  std::vector<CmpInst *> work;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *C = dyn_cast<CmpInst>(&I))
        if (auto *VT = dyn_cast<FixedVectorType>(C->getOperand(0)->getType()))
          // Half vectors too: "Cannot select: v2i1 = setcc v2f16" (half2 isequal, once the
          // optimiser had folded the float compare of extended halves back to halves).
          if (VT->getElementType()->isIntegerTy(8) || VT->getElementType()->isIntegerTy(16) ||
              VT->getElementType()->isHalfTy())
            work.push_back(C);
  for (CmpInst *C : work) {
    IRBuilder<> B(C);
    auto *VT = cast<FixedVectorType>(C->getOperand(0)->getType());
    Value *r = PoisonValue::get(C->getType());
    for (unsigned i = 0; i < VT->getNumElements(); i++) {
      Value *a = B.CreateExtractElement(C->getOperand(0), (uint64_t)i);
      Value *b = B.CreateExtractElement(C->getOperand(1), (uint64_t)i);
      Value *e = isa<FCmpInst>(C) ? B.CreateFCmp(C->getPredicate(), a, b) : B.CreateICmp(C->getPredicate(), a, b);
      r = B.CreateInsertElement(r, e, (uint64_t)i);
    }
    C->replaceAllUsesWith(r);
    C->eraseFromParent();
  }
}

// LLVM 19's NVPTX back end turns `fpext (load <16 x half>)` into extending loads of four halves each
// that it selects as `ld.global.v4.b16` into f32 registers: the raw bits, not the values (every
// half16 built-in that computes in float returned zeros and garbage: the CTS's math_brute_force,
// all fp16 functions at vector size 16). Eight lanes and fewer are selected correctly, so wider
// half-to-float/double extensions are done eight lanes at a time before code generation.
void splitWideHalfExtends(Module &M) {
  constexpr unsigned kLanes = 8;
  std::vector<FPExtInst *> work;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *E = dyn_cast<FPExtInst>(&I))
        if (auto *VT = dyn_cast<FixedVectorType>(E->getSrcTy()))
          if (VT->getElementType()->isHalfTy() && VT->getNumElements() > kLanes &&
              llvm::has_single_bit(VT->getNumElements()))
            work.push_back(E);
  for (FPExtInst *E : work) {
    IRBuilder<> B(E);
    auto *VT = cast<FixedVectorType>(E->getSrcTy());
    Type *to = cast<FixedVectorType>(E->getDestTy())->getElementType();
    unsigned n = VT->getNumElements();
    std::vector<Value *> parts;
    for (unsigned at = 0; at < n; at += kLanes) {
      SmallVector<int, 8> lanes;
      for (unsigned i = 0; i < kLanes; i++) lanes.push_back(int(at + i));
      Value *piece = B.CreateShuffleVector(E->getOperand(0), lanes);
      parts.push_back(B.CreateFPExt(piece, FixedVectorType::get(to, kLanes)));
    }
    // Concatenate neighbours pairwise (n / 8 is a power of two: OpenCL's widest vector is 16).
    while (parts.size() > 1) {
      std::vector<Value *> joined;
      for (size_t k = 0; k + 1 < parts.size(); k += 2) {
        unsigned len = cast<FixedVectorType>(parts[k]->getType())->getNumElements();
        SmallVector<int, 16> cat;
        for (unsigned i = 0; i < 2 * len; i++) cat.push_back(int(i));
        joined.push_back(B.CreateShuffleVector(parts[k], parts[k + 1], cat));
      }
      parts = joined;
    }
    Value *whole = parts[0];
    E->replaceAllUsesWith(whole);
    E->eraseFromParent();
  }
}

// LLVM 19's NVPTX back end loads a <2 x i8> kernel parameter (char2/uchar2 by value) with
// ld.param.u32 and takes its elements from the two 16-bit halves: the second element is the next
// parameter's first byte (the CTS's basic parameter_types). Such parameters are passed as i16
// (same size, alignment and offset) and turned back into <2 x i8> at entry.
void widenCharPairParams(Module &M) {
  LLVMContext &C = M.getContext();
  Type *i16 = Type::getInt16Ty(C);
  auto isPair = [](Type *T) {
    auto *VT = dyn_cast<FixedVectorType>(T);
    return VT && VT->getNumElements() == 2 && VT->getElementType()->isIntegerTy(8);
  };
  for (Function *F : kernelsOf(M)) {
    if (F->isDeclaration() || std::none_of(F->arg_begin(), F->arg_end(), [&](Argument &A) { return isPair(A.getType()); }))
      continue;
    std::vector<Type *> params;
    for (Argument &A : F->args()) params.push_back(isPair(A.getType()) ? i16 : A.getType());
    FunctionType *FT = FunctionType::get(F->getReturnType(), params, false);
    Function *NF = Function::Create(FT, F->getLinkage(), F->getAddressSpace(), "", &M);
    NF->copyAttributesFrom(F);
    NF->copyMetadata(F, 0);
    NF->takeName(F);
    NF->splice(NF->begin(), F);
    IRBuilder<> B(&*NF->getEntryBlock().getFirstInsertionPt());
    for (unsigned i = 0; i < F->arg_size(); i++) {
      Argument *Old = F->getArg(i), *New = NF->getArg(i);
      New->setName(Old->getName());
      if (isPair(Old->getType())) {
        for (Attribute::AttrKind K : {Attribute::NoUndef, Attribute::SExt, Attribute::ZExt})
          NF->removeParamAttr(i, K);
        Old->replaceAllUsesWith(B.CreateBitCast(New, Old->getType()));
      } else {
        Old->replaceAllUsesWith(New);
      }
    }
    F->replaceAllUsesWith(NF);
    F->eraseFromParent();
  }
}

// Whether PTX's float-to-integer cvt (NVPTX's lowering of fptosi/fptoui, and the _sat
// conversions' inline cvt) gives 0 for NaN by itself. The PTX ISA (9.0, cvt) says it does
// unless the source is .f64 or the destination .s64/.u64, which give 1 << (bits - 1) (INT_MIN
// for .s32); ptxas emits the same F2I with and without .sat. Only .f16/.f32 to 8, 16 and 32-bit
// integers answer yes (i8 is converted in a 16-bit register; anything else, i1 say, no).
bool ptxCvtGivesZeroForNaN(Type *from, Type *to) {
  Type *f = from->getScalarType(), *i = to->getScalarType();
  if (!(f->isFloatTy() || f->isHalfTy()) || !i->isIntegerTy()) return false;
  unsigned bits = i->getIntegerBitWidth();
  return bits == 8 || bits == 16 || bits == 32;
}

// A float-to-integer conversion of NaN is poison in LLVM, and PTX's cvt.rzi.s32.f64 gives the
// most negative integer for it: libclc's double cosh/sinh index their tables with
// min((int)|x|, 36), so a NaN argument read 32 GiB below the table (CUDA_ERROR_ILLEGAL_ADDRESS,
// the CTS's math_brute_force cosh and sinh). NaN converts to 0 here, as C's saturating
// conversions and OpenCL's convert_int_sat do, where PTX's cvt does not do so itself
// (ptxCvtGivesZeroForNaN): a select after each conversion from double or to a 64-bit integer.
// The others ((int)floor(x) of a float: remap's coordinates) are one cvt, no select (2 SASS
// instructions each). This runs on the optimised module, just before code generation.
void nanToZeroConversions(Module &M) {
  std::vector<Instruction *> work;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if ((isa<FPToSIInst>(I) || isa<FPToUIInst>(I)) && !ptxCvtGivesZeroForNaN(I.getOperand(0)->getType(), I.getType()))
        work.push_back(&I);
  for (Instruction *I : work) {
    IRBuilder<> B(I->getNextNode());
    Value *x = I->getOperand(0);
    std::vector<Use *> uses;
    for (Use &U : I->uses()) uses.push_back(&U);
    Value *r = B.CreateSelect(B.CreateFCmpUNO(x, x), Constant::getNullValue(I->getType()), I);
    for (Use *U : uses) U->set(r);
  }
}
