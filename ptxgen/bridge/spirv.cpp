// pg_import_spirv: the LLVM bitcode that llvm-spirv's reverse translation (`llvm-spirv -r`, LLVM
// 15) makes of an OpenCL SPIR-V module, turned into the module pg_compile would have produced
// for the same kernels, so that the rest of the pipeline (pg_lower, libclc, codegen) runs on it
// unchanged.
//
// What differs from clang's nvptx output, and why each matters:
// - the target: spir64 triple and data layout -> nvptx64-nvidia-cuda's;
// - address spaces: SPIR numbers them 0 private, 1 global, 2 constant, 3 local, 4 generic;
//   NVPTX has 0 generic (where clang also puts private allocas: its data layout has no alloca
//   address space), 1 global, 3 shared, 4 const. Pointer types are part of every function
//   type, global and instruction, so the module is cloned into a new one through a type
//   remapper (a type cannot be changed in place). Private and generic both become 0, so a cast
//   between them becomes a cast to the same space, which is invalid IR: such casts are dropped;
// - calling conventions: helpers are spir_func (clang's are plain C); kernels stay spir_kernel,
//   which is how ptxgen recognises kernels (isKernel);
// - clang marks every OpenCL function and call convergent (a barrier may hide in a callee);
//   the reverse translation marks only the barrier itself, so the optimiser could move a call
//   of a helper that holds a barrier across control flow. Everything is marked convergent again;
// - the kernel_arg_* metadata already uses OpenCL's address-space numbers (1 global, 2
//   constant, 3 local), as clang's does; kernel_arg_name is absent (SPIR-V carries no names:
//   such programs have no argument info).
// The OpenCL built-ins come back as OpenCL C mangled calls (`_Z13get_global_idj`,
// `_Z10atomic_addPU3AS1Vii`), the names libclc and ptxgen's own libraries define, except that
// their pointer types spell SPIR's address spaces: renameBuiltins (spirv_names.cpp).
#include "bridge.h"

#include <llvm/IR/MDBuilder.h>

using namespace llvm;

namespace {

// SPIR's address space -> NVPTX's. Anything else is not OpenCL SPIR-V.
int nvptxSpace(unsigned spir) {
  switch (spir) {
  case 0: return 0;  // private: clang's nvptx allocas are in 0 too
  case 1: return 1;  // global
  case 2: return 4;  // constant
  case 3: return 3;  // local
  case 4: return 0;  // generic
  default: return -1;
  }
}

// Maps every type holding a pointer to the same type with NVPTX address spaces.
class SpaceRemapper : public ValueMapTypeRemapper {
public:
  explicit SpaceRemapper(LLVMContext &C) : C(C) {}

  Type *remapType(Type *T) override {
    auto it = done.find(T);
    if (it != done.end()) return it->second;
    Type *R = compute(T);
    done[T] = R;
    return R;
  }

private:
  LLVMContext &C;
  DenseMap<Type *, Type *> done;

  Type *compute(Type *T) {
    if (auto *P = dyn_cast<PointerType>(T)) {
      int as = nvptxSpace(P->getAddressSpace());
      if (as < 0)
        throw BridgeError("error: the SPIR-V module uses address space " +
                          std::to_string(P->getAddressSpace()) + ", which OpenCL does not have\n");
      return PointerType::get(C, as);
    }
    if (auto *V = dyn_cast<VectorType>(T))
      return VectorType::get(remapType(V->getElementType()), V->getElementCount());
    if (auto *A = dyn_cast<ArrayType>(T))
      return ArrayType::get(remapType(A->getElementType()), A->getNumElements());
    if (auto *F = dyn_cast<FunctionType>(T)) {
      std::vector<Type *> ps;
      for (Type *p : F->params()) ps.push_back(remapType(p));
      return FunctionType::get(remapType(F->getReturnType()), ps, F->isVarArg());
    }
    if (auto *S = dyn_cast<StructType>(T)) {
      if (S->isOpaque()) return S;
      std::vector<Type *> es;
      bool changed = false;
      // A named struct that refers to itself through a pointer is fine: pointers are opaque,
      // so the recursion ends at the pointer.
      for (Type *e : S->elements()) {
        es.push_back(remapType(e));
        changed |= es.back() != e;
      }
      if (!changed) return S;
      if (S->isLiteral()) return StructType::get(C, es, S->isPacked());
      return StructType::create(C, es, S->getName(), S->isPacked());
    }
    return T;
  }
};

// Byval/sret/elementtype attributes name a type; a struct type the remapper replaced must be
// replaced there too (the verifier compares them with the pointee's uses).
AttributeList remapTypeAttrs(LLVMContext &C, AttributeList AL, unsigned nparams, SpaceRemapper &TM) {
  const Attribute::AttrKind kinds[] = {Attribute::ByVal, Attribute::StructRet, Attribute::ElementType,
                                       Attribute::ByRef, Attribute::Preallocated, Attribute::InAlloca};
  for (unsigned i = 0; i < nparams; i++)
    for (Attribute::AttrKind k : kinds) {
      Type *t = AL.getParamAttrs(i).getAttribute(k).isValid()
                    ? AL.getParamAttrs(i).getAttribute(k).getValueAsType()
                    : nullptr;
      if (!t) continue;
      Type *n = TM.remapType(t);
      if (n == t) continue;
      AL = AL.removeParamAttribute(C, i, k);
      AL = AL.addParamAttribute(C, i, Attribute::get(C, k, n));
    }
  return AL;
}

// After the clone: casts between private and generic are now casts to the same space.
void dropIdentityCasts(Module &M) {
  std::vector<AddrSpaceCastInst *> dead;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *AC = dyn_cast<AddrSpaceCastInst>(&I))
        if (AC->getSrcAddressSpace() == AC->getDestAddressSpace()) dead.push_back(AC);
  for (AddrSpaceCastInst *AC : dead) {
    AC->replaceAllUsesWith(AC->getOperand(0));
    AC->eraseFromParent();
  }
}

// Calling conventions and convergence as clang gives them for OpenCL C on nvptx.
void clangConventions(Module &M) {
  for (Function &F : M) {
    if (F.isIntrinsic()) continue;
    if (F.getCallingConv() == CallingConv::SPIR_FUNC) F.setCallingConv(CallingConv::C);
    F.addFnAttr(Attribute::Convergent);
    for (Instruction &I : instructions(F)) {
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (CB->getCallingConv() == CallingConv::SPIR_FUNC) CB->setCallingConv(CallingConv::C);
        if (!isa<IntrinsicInst>(CB)) CB->addFnAttr(Attribute::Convergent);
      }
      // OpFDiv of floats is as accurate as OpenCL C's `/` (2.5 ulp, the OpenCL SPIR-V
      // environment), which clang marks with !fpmath 2.5 and ptxgen lowers to div.full: the
      // same division as a source kernel's (the CTS's spirv_new op_fdiv compares the two bit
      // for bit). The translator's output carries no !fpmath.
      if (I.getOpcode() == Instruction::FDiv && I.getType()->getScalarType()->isFloatTy() &&
          !I.getMetadata(LLVMContext::MD_fpmath))
        I.setMetadata(LLVMContext::MD_fpmath, MDBuilder(M.getContext()).createFPMath(2.5f));
    }
  }
}

// Built-in declarations renamed to nvptx's mangling (spirv_names.cpp). Two SPIR names may
// become one (a generic and a private overload): their calls then share one declaration. A new
// name may also be another declaration's old one (SPIR's generic `U3AS4` is nvptx's constant),
// so every renamed declaration first gives up its name.
void renameBuiltins(Module &M) {
  std::vector<std::pair<Function *, std::string>> renames;
  for (Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic())
      if (std::string to = nvptxMangledName(F.getName()); !to.empty()) renames.push_back({&F, to});
  for (auto &[F, to] : renames) F->setName("__cudacl_spirv_renamed");
  for (auto &[F, to] : renames) {
    if (Function *G = M.getFunction(to)) {
      if (G->getFunctionType() != F->getFunctionType())
        throw BridgeError("error: built-in '" + to + "' is declared with two different types\n");
      F->replaceAllUsesWith(G);
      F->eraseFromParent();
    } else {
      F->setName(to);
    }
  }
}

std::unique_ptr<Module> toNvptx(Module &S) {
  LLVMContext &C = S.getContext();
  StripDebugInfo(S);
  if (!S.alias_empty() || !S.ifunc_empty())
    throw BridgeError("error: the SPIR-V module has aliases, which OpenCL does not have\n");
  auto N = std::make_unique<Module>(S.getModuleIdentifier(), C);
  N->setTargetTriple(kTriple);
  N->setDataLayout("e-i64:64-i128:128-v16:16-v32:32-n16:32:64");
  SpaceRemapper TM(C);
  ValueToValueMapTy VMap;

  for (GlobalVariable &G : S.globals()) {
    int as = nvptxSpace(G.getAddressSpace());
    if (as < 0) throw BridgeError("error: global '" + G.getName().str() + "' is in no OpenCL address space\n");
    auto *NG = new GlobalVariable(*N, TM.remapType(G.getValueType()), G.isConstant(), G.getLinkage(),
                                  nullptr, G.getName(), nullptr, G.getThreadLocalMode(), (unsigned)as);
    NG->copyAttributesFrom(&G);
    VMap[&G] = NG;
  }
  std::vector<std::pair<Function *, Function *>> bodies;
  std::vector<Function *> remangled;
  for (Function &F : S) {
    auto *FT = cast<FunctionType>(TM.remapType(F.getFunctionType()));
    Function *NF = Function::Create(FT, F.getLinkage(), F.getAddressSpace(), F.getName(), N.get());
    NF->copyAttributesFrom(&F);
    NF->setAttributes(remapTypeAttrs(C, NF->getAttributes(), FT->getNumParams(), TM));
    VMap[&F] = NF;
    if (!F.isDeclaration()) bodies.push_back({&F, NF});
    if (NF->isIntrinsic()) remangled.push_back(NF);
  }
  // An intrinsic's name spells its pointer types (llvm.memcpy.p1.p2.i64): the renamed spaces
  // need the name for the new types.
  for (Function *NF : remangled)
    if (std::optional<Function *> R = Intrinsic::remangleIntrinsicFunction(NF)) {
      // VMap's entries are value handles that follow the replacement.
      NF->replaceAllUsesWith(*R);
      NF->eraseFromParent();
    }
  for (GlobalVariable &G : S.globals())
    if (G.hasInitializer())
      cast<GlobalVariable>(VMap[&G])->setInitializer(MapValue(G.getInitializer(), VMap, RF_None, &TM));
  for (auto [F, NF] : bodies) {
    auto NA = NF->arg_begin();
    for (Argument &A : F->args()) {
      NA->setName(A.getName());
      VMap[&A] = &*NA++;
    }
    SmallVector<ReturnInst *, 4> returns;
    CloneFunctionInto(NF, F, VMap, CloneFunctionChangeType::DifferentModule, returns, "", nullptr, &TM);
    NF->setAttributes(remapTypeAttrs(C, NF->getAttributes(), NF->arg_size(), TM));
    for (Instruction &I : instructions(*NF))
      if (auto *CB = dyn_cast<CallBase>(&I))
        CB->setAttributes(remapTypeAttrs(C, CB->getAttributes(), CB->arg_size(), TM));
  }
  dropIdentityCasts(*N);
  clangConventions(*N);
  renameBuiltins(*N);
  // Kernels must be told to NVPTX (pg_lower adds the annotation to each kernel it rewrites).
  return N;
}

} // namespace

extern "C" {

// bitcode (len bytes, from `llvm-spirv -r`) -> *out, a module in c ready for pg_lower.
// Returns 0 ok, 1 failure (log says why).
int pg_import_spirv(LLVMContextRef c, const char *bc, size_t len, LLVMModuleRef *out, char **log) {
  return guarded(log, 1, "internal error importing the SPIR-V module", [&] {
    LLVMContext &C = *unwrap(c);
    auto buf = MemoryBuffer::getMemBuffer(StringRef(bc, len), "spirv", false);
    Expected<std::unique_ptr<Module>> S = parseBitcodeFile(buf->getMemBufferRef(), C);
    if (!S) {
      setLog(log, "error: the SPIR-V translator's output is not readable bitcode: " +
                      toString(S.takeError()) + "\n");
      return 1;
    }
    std::unique_ptr<Module> N = toNvptx(**S);
    S->reset();
    if (invalidIR(*N, "importing the SPIR-V module", log)) return 1;
    *out = wrap(N.release());
    return 0;
  });
}

} // extern "C"
