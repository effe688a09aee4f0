// Built-ins ptxgen defines or lowers itself (split from bridge.cpp): printf, mad_hi/mul24/mad24,
// the relaxed divisions, the atomics and conversions libclc lacks or does slowly, and the
// built-ins libclc lacks on nvptx.
#include "bridge.h"

using namespace llvm;

namespace {

// printf(__constant char *fmt, ...) -> vprintf(generic fmt, generic packed-args buffer).
// The buffer follows CUDA's ABI: the (already promoted) arguments in a struct with natural
// alignment; __constant/__global string pointers become generic pointers.
// OpenCL's vector conversions (%v4f, %v2hld, %v16hhx, ...) have no vprintf equivalent: with a
// constant format, each is expanded into one conversion per element, joined by ','.
//
// CUDA's vprintf misreads the `hh` length modifier (printf("%hhd", 127) printed 37, the CTS's
// printf length_specifier and vector tests): `hh` conversions become plain ones of the value
// truncated to 8 bits (sign-extended for d/i, zero-extended otherwise), as C defines them.
void expandVectorFormat(IRBuilder<> &B, Value *&fmt, std::vector<Value *> &args) {
  bool anyVector = false;
  for (Value *a : args) anyVector |= a->getType()->isVectorTy();
  auto *G = dyn_cast<GlobalVariable>(fmt->stripPointerCasts());
  if (!G || !G->hasInitializer()) return;
  auto *CDS = dyn_cast<ConstantDataSequential>(G->getInitializer());
  if (!CDS || !CDS->isString()) return;
  std::string f = CDS->getAsString().str();
  while (!f.empty() && f.back() == 0) f.pop_back();
  if (!anyVector && f.find("hh") == std::string::npos) return;
  auto narrow = [&](Value *v, char conv) -> Value * {
    if (!v->getType()->isIntegerTy()) return v;
    Value *t = B.CreateTrunc(v, B.getInt8Ty());
    return conv == 'd' || conv == 'i' ? B.CreateSExt(t, B.getInt32Ty()) : B.CreateZExt(t, B.getInt32Ty());
  };
  std::string out;
  std::vector<Value *> nargs;
  size_t ai = 0;
  for (size_t i = 0; i < f.size();) {
    if (f[i] != '%') {
      out += f[i++];
      continue;
    }
    if (i + 1 < f.size() && f[i + 1] == '%') {
      out += "%%";
      i += 2;
      continue;
    }
    size_t j = i + 1;
    while (j < f.size() && strchr("-+ #0", f[j])) j++;
    while (j < f.size() && isdigit((unsigned char)f[j])) j++;
    if (j < f.size() && f[j] == '.') {
      j++;
      while (j < f.size() && isdigit((unsigned char)f[j])) j++;
    }
    std::string head = f.substr(i, j - i);  // '%' flags width precision
    unsigned vec = 0;
    if (j < f.size() && f[j] == 'v') {
      j++;
      while (j < f.size() && isdigit((unsigned char)f[j])) vec = vec * 10 + (f[j++] - '0');
    }
    std::string len;
    if (f.compare(j, 2, "hh") == 0 || f.compare(j, 2, "hl") == 0) len = f.substr(j, 2), j += 2;
    else if (j < f.size() && (f[j] == 'h' || f[j] == 'l')) len = f.substr(j, 1), j += 1;
    if (j >= f.size() || ai >= args.size()) return;  // malformed: leave the call alone
    char conv = f[j++];
    i = j;
    Value *a = args[ai++];
    bool hh = len == "hh";
    if (hh) len = "";
    if (!vec) {
      out += head + len + conv;
      nargs.push_back(hh ? narrow(a, conv) : a);
      continue;
    }
    auto *VT = dyn_cast<FixedVectorType>(a->getType());
    if (!VT) return;
    std::string elen = len == "hl" ? "" : len;
    for (unsigned k = 0; k < VT->getNumElements(); k++) {
      if (k) out += ",";
      out += head + elen + conv;
      Value *e = B.CreateExtractElement(a, k);
      nargs.push_back(hh ? narrow(e, conv) : e);
    }
  }
  if (ai != args.size()) return;
  fmt = B.CreateGlobalString(out, "printf.vfmt", 1);
  args = nargs;
}

} // namespace

void lowerPrintf(Module &M) {
  Function *P = M.getFunction("printf");
  if (!P || P->use_empty()) return;
  LLVMContext &C = M.getContext();
  Type *i32 = Type::getInt32Ty(C);
  PointerType *gen = PointerType::get(C, 0);
  FunctionCallee vp = M.getOrInsertFunction("vprintf", FunctionType::get(i32, {gen, gen}, false));
  std::vector<CallBase *> calls;
  for (User *U : P->users())
    if (auto *CB = dyn_cast<CallBase>(U)) calls.push_back(CB);
  for (CallBase *CB : calls) {
    IRBuilder<> B(CB);
    Value *fmt = CB->getArgOperand(0);
    std::vector<Value *> args;
    for (unsigned i = 1; i < CB->arg_size(); i++) args.push_back(CB->getArgOperand(i));
    expandVectorFormat(B, fmt, args);
    if (fmt->getType()->getPointerAddressSpace() != 0)
      fmt = B.CreateAddrSpaceCast(fmt, gen);
    std::vector<Value *> vals;
    std::vector<Type *> tys;
    for (Value *v : args) {
      Type *T = v->getType();
      if (T->isPointerTy() && T->getPointerAddressSpace() != 0) {
        v = B.CreateAddrSpaceCast(v, gen);
      } else if (T->isFloatTy() || T->isHalfTy()) {
        v = B.CreateFPExt(v, Type::getDoubleTy(C));
      } else if (T->isIntegerTy() && T->getIntegerBitWidth() < 32) {
        v = B.CreateSExt(v, i32);
      }
      vals.push_back(v);
      tys.push_back(v->getType());
    }
    Value *buf = ConstantPointerNull::get(gen);
    if (!vals.empty()) {
      StructType *ST = StructType::get(C, tys);
      Function *Fn = CB->getFunction();
      IRBuilder<> EB(&Fn->getEntryBlock(), Fn->getEntryBlock().getFirstInsertionPt());
      AllocaInst *A = EB.CreateAlloca(ST, nullptr, "printf.args");
      A->setAlignment(Align(8));
      for (unsigned i = 0; i < vals.size(); i++)
        B.CreateStore(vals[i], B.CreateStructGEP(ST, A, i));
      buf = A;
      if (A->getType()->getPointerAddressSpace() != 0) buf = B.CreateAddrSpaceCast(A, gen);
    }
    Value *r = B.CreateCall(vp, {fmt, buf});
    // OpenCL: 0 on success, -1 on failure.
    Value *ret = B.CreateSelect(B.CreateICmpSLT(r, ConstantInt::get(i32, 0)),
                                ConstantInt::get(i32, -1), ConstantInt::get(i32, 0));
    if (!CB->getType()->isVoidTy()) CB->replaceAllUsesWith(ret);
    CB->eraseFromParent();
  }
  if (P->use_empty()) P->eraseFromParent();
}

namespace {

// mul24(a, b) and mad24(a, b, c) as a full 32-bit a * b (+ c). OpenCL 1.2 (6.12.3) leaves the
// result implementation-defined outside the 24-bit range, and NVIDIA GPUs multiply 32-bit
// integers at full speed, while libclc's versions first sign- or zero-extend the low 24 bits
// of each operand (clpeak's "integer fast 24bit" ran 20% below NVIDIA's OpenCL with them).
bool defineFast24(Function &F) {
  StringRef n = F.getName();
  bool mul = n.starts_with("_Z5mul24") && F.arg_size() == 2;
  bool mad = n.starts_with("_Z5mad24") && F.arg_size() == 3;
  if (!(mul || mad) || !F.getReturnType()->isIntOrIntVectorTy()) return false;
  F.setLinkage(GlobalValue::InternalLinkage);
  F.addFnAttr(Attribute::AlwaysInline);
  IRBuilder<> B(BasicBlock::Create(F.getContext(), "entry", &F));
  Value *r = B.CreateMul(F.getArg(0), F.getArg(1));
  B.CreateRet(mad ? B.CreateAdd(r, F.getArg(2)) : r);
  return true;
}

} // namespace

// Builtins libclc implements as macros (so the library has no symbol for them) while clang's
// -fdeclare-opencl-builtins declares them as functions: mad_hi(a, b, c) = mul_hi(a, b) + c.
// Also mul24/mad24 (defineFast24).
void defineMacroBuiltins(Module &M) {
  for (Function &F : M) {
    if (!F.isDeclaration() || F.use_empty()) continue;
    if (defineFast24(F)) continue;
    StringRef n = F.getName();
    if (!n.starts_with("_Z6mad_hi") || F.arg_size() != 3) continue;
    StringRef args = n.drop_front(strlen("_Z6mad_hi"));
    std::string mulArgs = args.ends_with("S_") ? args.drop_back(2).str() : args.drop_back(1).str();
    FunctionType *FT = F.getFunctionType();
    FunctionCallee mul = M.getOrInsertFunction(
        "_Z6mul_hi" + mulArgs,
        FunctionType::get(FT->getReturnType(), {FT->getParamType(0), FT->getParamType(1)}, false));
    F.setLinkage(GlobalValue::InternalLinkage);
    F.addFnAttr(Attribute::AlwaysInline);
    IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", &F));
    B.CreateRet(B.CreateAdd(B.CreateCall(mul, {F.getArg(0), F.getArg(1)}), F.getArg(2)));
  }
}

namespace {

// Single-precision division. OpenCL 1.2 allows x / y 2.5 ulp (section 7.4) unless the program
// is built with -cl-fp32-correctly-rounded-divide-sqrt; clang says which by the !fpmath 2.5 it
// puts on the division (none with the option). NVPTX would emit every fdiv as div.rn.f32, a
// correctly rounded division that costs a subroutine; NVIDIA's OpenCL emits div.full.f32 (2 ulp
// at most over the whole range, subnormals kept), as cudacl does now for the program's own
// divisions. libclc's divisions carry the same !fpmath, but its functions' accuracy was worked
// out against correctly rounded ones, so only the divisions of the program's source are
// relaxed: tagged here before libclc is linked, lowered after the optimiser (which keeps
// constant divisors foldable until then).
const char *const kRelaxedDiv = "cudacl.div.full";

} // namespace

void tagRelaxedDivisions(Module &M) {
  unsigned kind = M.getContext().getMDKindID(kRelaxedDiv);
  MDNode *tag = MDNode::get(M.getContext(), {});
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (I.getOpcode() == Instruction::FDiv && I.getType()->getScalarType()->isFloatTy() &&
          cast<FPMathOperator>(I).getFPAccuracy() >= 2.0f)
        I.setMetadata(kind, tag);
}

void lowerRelaxedDivisions(Module &M) {
  unsigned kind = M.getContext().getMDKindID(kRelaxedDiv);
  LLVMContext &C = M.getContext();
  Type *f32 = Type::getFloatTy(C);
  FunctionType *FT = FunctionType::get(f32, {f32, f32}, false);
  for (Function &F : M) {
    // -cl-denorms-are-zero wants the ftz forms. -cl-unsafe-math-optimizations and
    // -cl-fast-relaxed-math (arcp on the division) give up section 7.4's accuracy: div.approx,
    // as NVIDIA's OpenCL does (2 ulp for divisors in [2^-126, 2^126]).
    bool ftz = F.getDenormalMode(APFloat::IEEEsingle()).Output == DenormalMode::PreserveSign;
    std::string mod = ftz ? ".ftz" : "";
    InlineAsm *full = InlineAsm::get(FT, "div.full" + mod + ".f32 $0, $1, $2;", "=f,f,f", false);
    InlineAsm *approx = InlineAsm::get(FT, "div.approx" + mod + ".f32 $0, $1, $2;", "=f,f,f", false);
    std::vector<Instruction *> divs;
    for (Instruction &I : instructions(F))
      if (I.getOpcode() == Instruction::FDiv && I.getMetadata(kind)) divs.push_back(&I);
    for (Instruction *I : divs) {
      InlineAsm *div = I->hasAllowReciprocal() ? approx : full;
      IRBuilder<> B(I);
      Value *a = I->getOperand(0), *b = I->getOperand(1), *r;
      if (auto *VT = dyn_cast<FixedVectorType>(I->getType())) {
        r = PoisonValue::get(VT);
        for (unsigned i = 0; i < VT->getNumElements(); i++)
          r = B.CreateInsertElement(
              r, B.CreateCall(div, {B.CreateExtractElement(a, i), B.CreateExtractElement(b, i)}), i);
      } else {
        r = B.CreateCall(div, {a, b});
      }
      I->replaceAllUsesWith(r);
      I->eraseFromParent();
    }
  }
}

// Single-precision square roots, native_ and half_ quotients of the program's source. OpenCL 1.2
// allows sqrt 3 ulp (section 7.4) unless the program is built with
// -cl-fp32-correctly-rounded-divide-sqrt (clang marks each sqrt call with !fpmath 3 otherwise),
// rsqrt 2 ulp, half_divide and half_recip 8192 ulp, and the native_ functions whatever the
// implementation defines. libclc answers them all with correctly rounded operations (sqrt.rn,
// rcp.rn, div.rn: each several instructions and a branch); NVIDIA's OpenCL emits the GPU's own
// approximations, as cudacl does now: sqrt.approx, rsqrt.approx, div.approx (the .ftz forms under
// -cl-denorms-are-zero). The CTS's math_brute_force checks sqrt and rsqrt over every float. Only
// the program's calls change: libclc's own functions keep the correctly rounded operations their
// accuracy was worked out with.
void relaxRootsAndQuotients(Module &M) {
  // Divide and Recip: div.approx (2 ulp for divisors in [2^-126, 2^126], 0 beyond); the half_
  // forms, which the CTS checks over the whole range, div.full (2 ulp everywhere, as the
  // program's own divisions: lowerRelaxedDivisions).
  enum Kind { Sqrt, Rsqrt, Divide, Recip, FullDivide, FullRecip };
  struct Fn { const char *prefix; Kind kind; bool needsFpmath; };
  const Fn fns[] = {{"_Z4sqrt", Sqrt, true},             {"_Z11native_sqrt", Sqrt, false},
                    {"_Z5rsqrt", Rsqrt, false},           {"_Z12native_rsqrt", Rsqrt, false},
                    {"_Z13native_divide", Divide, false}, {"_Z11half_divide", FullDivide, false},
                    {"_Z12native_recip", Recip, false},   {"_Z10half_recip", FullRecip, false}};
  unsigned relaxedDiv = M.getContext().getMDKindID(kRelaxedDiv);
  std::vector<std::pair<CallInst *, Kind>> work;
  for (Function &F : M) {
    if (!F.isDeclaration()) continue;
    Type *T = F.getReturnType();
    if (!T->getScalarType()->isFloatTy()) continue;
    for (const Fn &fn : fns) {
      StringRef n = F.getName();
      if (!n.consume_front(fn.prefix)) continue;
      unsigned arity = fn.kind == Divide || fn.kind == FullDivide ? 2 : 1;
      // float or a vector of floats, once per argument: "f", "ff", "Dv4_f", "Dv4_fS_"
      bool scalarArgs = n == (arity == 2 ? "ff" : "f");
      bool vectorArgs = n.starts_with("Dv") && (n.ends_with(arity == 2 ? "_fS_" : "_f"));
      if (F.arg_size() != arity || !(scalarArgs || vectorArgs)) continue;
      bool sameTypes = true;
      for (Argument &A : F.args()) sameTypes &= A.getType() == T;
      if (!sameTypes) continue;
      for (User *U : F.users()) {
        auto *CI = dyn_cast<CallInst>(U);
        if (!CI || CI->getCalledFunction() != &F) continue;
        // sqrt with -cl-fp32-correctly-rounded-divide-sqrt (no !fpmath) stays correctly rounded
        if (fn.needsFpmath && cast<FPMathOperator>(CI)->getFPAccuracy() < 3.0f) continue;
        work.push_back({CI, fn.kind});
      }
    }
  }
  for (auto [CI, kind] : work) {
    bool ftz = CI->getFunction()->getDenormalMode(APFloat::IEEEsingle()).Output == DenormalMode::PreserveSign;
    Intrinsic::ID id = kind == Sqrt    ? (ftz ? Intrinsic::nvvm_sqrt_approx_ftz_f : Intrinsic::nvvm_sqrt_approx_f)
                       : kind == Rsqrt ? (ftz ? Intrinsic::nvvm_rsqrt_approx_ftz_f : Intrinsic::nvvm_rsqrt_approx_f)
                                       : (ftz ? Intrinsic::nvvm_div_approx_ftz_f : Intrinsic::nvvm_div_approx_f);
    Function *op = Intrinsic::getDeclaration(&M, id);
    IRBuilder<> B(CI);
    auto lane = [&](Value *v, unsigned i) -> Value * {
      return v->getType()->isVectorTy() ? B.CreateExtractElement(v, (uint64_t)i) : v;
    };
    auto one = [&](unsigned i) -> Value * {
      Value *x = lane(CI->getArgOperand(0), i);
      if (kind == FullDivide || kind == FullRecip) {
        Value *num = kind == FullRecip ? ConstantFP::get(B.getFloatTy(), 1.0) : x;
        Value *den = kind == FullRecip ? x : lane(CI->getArgOperand(1), i);
        auto *q = cast<Instruction>(B.CreateFDiv(num, den));
        q->setMetadata(relaxedDiv, MDNode::get(M.getContext(), {}));
        return q;
      }
      if (kind == Divide) return B.CreateCall(op, {x, lane(CI->getArgOperand(1), i)});
      if (kind == Recip) return B.CreateCall(op, {ConstantFP::get(B.getFloatTy(), 1.0), x});
      return B.CreateCall(op, {x});
    };
    Value *r;
    if (auto *VT = dyn_cast<FixedVectorType>(CI->getType())) {
      r = PoisonValue::get(VT);
      for (unsigned i = 0; i < VT->getNumElements(); i++) {
        Value *v = one(i);
        r = B.CreateInsertElement(r, v, (uint64_t)i);
      }
    } else {
      r = one(0);
    }
    CI->replaceAllUsesWith(r);
    CI->eraseFromParent();
  }
}

// OpenCL atomics libclc does not define for nvptx (notably all the 64-bit atom_* of
// cl_khr_int64_base/extended_atomics): defined here as atomicrmw/cmpxchg (relaxed, as OpenCL
// 1.2's atomics are), for whatever address space and integer type the declaration has.
bool defineAtomic(Function &F) {
  StringRef name = F.getName();
  if (!name.consume_front("_Z")) return false;
  unsigned len = 0;
  if (name.consumeInteger(10, len) || name.size() < len) return false;
  StringRef base = name.substr(0, len);
  StringRef mangledArgs = name.substr(len);
  if (!base.consume_front("atom_") && !base.consume_front("atomic_")) return false;
  FunctionType *FT = F.getFunctionType();
  if (FT->getNumParams() < 1 || !FT->getParamType(0)->isPointerTy()) return false;
  Type *T = FT->getReturnType();
  if (!T->isIntegerTy(32) && !T->isIntegerTy(64)) return false;
  bool isSigned = mangledArgs.ends_with("l") || mangledArgs.ends_with("i");
  LLVMContext &C = F.getContext();
  AtomicRMWInst::BinOp op;
  unsigned want = 2;
  if (base == "add") op = AtomicRMWInst::Add;
  else if (base == "sub") op = AtomicRMWInst::Sub;
  else if (base == "xchg") op = AtomicRMWInst::Xchg;
  else if (base == "and") op = AtomicRMWInst::And;
  else if (base == "or") op = AtomicRMWInst::Or;
  else if (base == "xor") op = AtomicRMWInst::Xor;
  else if (base == "min") op = isSigned ? AtomicRMWInst::Min : AtomicRMWInst::UMin;
  else if (base == "max") op = isSigned ? AtomicRMWInst::Max : AtomicRMWInst::UMax;
  else if (base == "inc") { op = AtomicRMWInst::Add; want = 1; }
  else if (base == "dec") { op = AtomicRMWInst::Sub; want = 1; }
  else if (base == "cmpxchg") { op = AtomicRMWInst::BAD_BINOP; want = 3; }
  else return false;
  if (FT->getNumParams() != want) return false;
  for (unsigned i = 1; i < want; i++)
    if (FT->getParamType(i) != T) return false;
  F.setLinkage(GlobalValue::InternalLinkage);
  F.removeFnAttr(Attribute::NoInline);
  F.removeFnAttr(Attribute::OptimizeNone);
  F.addFnAttr(Attribute::AlwaysInline);
  IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
  Value *p = F.getArg(0);
  Align al(T->getIntegerBitWidth() / 8);
  Value *r;
  if (want == 3) {
    Value *pair = B.CreateAtomicCmpXchg(p, F.getArg(1), F.getArg(2), al, AtomicOrdering::Monotonic,
                                        AtomicOrdering::Monotonic);
    r = B.CreateExtractValue(pair, 0);
  } else {
    Value *v = want == 1 ? static_cast<Value *>(ConstantInt::get(T, 1)) : F.getArg(1);
    r = B.CreateAtomicRMW(op, p, v, al, AtomicOrdering::Monotonic);
  }
  B.CreateRet(r);
  return true;
}

// convert_{char,uchar,short,ushort,int,uint}N_sat[_rte|_rtz|_rtp|_rtn](floatN / doubleN): one
// PTX conversion per element. PTX's float-to-integer cvt clamps to the destination's range, and
// from .f32 it turns NaN into 0: exactly OpenCL's _sat (6.2.3.3). From .f64 NaN gives
// 1 << (bits - 1) (ptxCvtGivesZeroForNaN), so a double lane gets a NaN select as well. libclc's
// version (rint, a truncating cvt, a NaN select and two compares and selects per element) is
// what made convertTo slower than NVIDIA's, which emits one cvt.rni.sat.u8.f32. The rounding is
// the suffix's, rtz without one (6.2.3.2: float-to-integer conversions round toward zero by
// default).
void defineSaturatingConversions(Module &M) {
  LLVMContext &C = M.getContext();
  for (Function &F : M) {
    if (!F.isDeclaration() || F.arg_size() != 1) continue;
    StringRef n = F.getName();
    size_t at = n.find("convert_");
    if (!n.starts_with("_Z") || at == StringRef::npos) continue;
    StringRef rest = n.substr(at + 8);
    struct Dst { const char *name, *ptx; unsigned bits; };
    static const Dst dsts[] = {{"uchar", "u8", 8}, {"char", "s8", 8}, {"ushort", "u16", 16},
                               {"short", "s16", 16}, {"uint", "u32", 32}, {"int", "s32", 32}};
    const Dst *dst = nullptr;
    for (const Dst &d : dsts)
      if (rest.starts_with(d.name)) {
        dst = &d;
        break;
      }
    if (!dst) continue;
    rest = rest.substr(strlen(dst->name));
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') rest = rest.drop_front();
    if (!rest.starts_with("_sat")) continue;
    rest = rest.substr(4);
    const char *rnd = "rzi";
    if (rest.starts_with("_rte")) rnd = "rni", rest = rest.substr(4);
    else if (rest.starts_with("_rtz")) rnd = "rzi", rest = rest.substr(4);
    else if (rest.starts_with("_rtp")) rnd = "rpi", rest = rest.substr(4);
    else if (rest.starts_with("_rtn")) rnd = "rmi", rest = rest.substr(4);
    Type *RT = F.getReturnType(), *AT = F.getArg(0)->getType();
    Type *RE = RT->getScalarType(), *AE = AT->getScalarType();
    unsigned lanes = isa<FixedVectorType>(RT) ? cast<FixedVectorType>(RT)->getNumElements() : 1;
    unsigned alanes = isa<FixedVectorType>(AT) ? cast<FixedVectorType>(AT)->getNumElements() : 1;
    bool f32 = AE->isFloatTy(), f64 = AE->isDoubleTy();
    // The mangled argument must follow the name directly ("f", "d", "Dv4_f", ...).
    bool argOk = (rest == "f" && f32) || (rest == "d" && f64) ||
                 (rest.starts_with("Dv") && rest.ends_with(f32 ? "_f" : "_d") && (f32 || f64));
    if (!argOk || lanes != alanes || isa<FixedVectorType>(RT) != isa<FixedVectorType>(AT) ||
        !RE->isIntegerTy(dst->bits))
      continue;
    // Every result comes in a 32-bit register (cvt writes a narrower type zero- or
    // sign-extended to the register's width) and is truncated: from a 16-bit register, ptxas
    // masks an 8-bit result again before storing it (remap's and convertTo's byte stores).
    Type *RegT = Type::getInt32Ty(C);
    std::string text = std::string("cvt.") + rnd + ".sat." + dst->ptx + (f32 ? ".f32" : ".f64") + " $0, $1;";
    std::string constraints = std::string("=r,") + (f32 ? "f" : "d");
    InlineAsm *cvt = InlineAsm::get(FunctionType::get(RegT, {AE}, false), text, constraints, false);
    F.setLinkage(GlobalValue::InternalLinkage);
    F.removeFnAttr(Attribute::NoInline);
    F.removeFnAttr(Attribute::OptimizeNone);
    F.addFnAttr(Attribute::AlwaysInline);
    IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
    Value *x = F.getArg(0);
    auto one = [&](Value *e) {
      Value *r = B.CreateCall(cvt, {e});
      if (!ptxCvtGivesZeroForNaN(AE, RE)) r = B.CreateSelect(B.CreateFCmpUNO(e, e), ConstantInt::get(RegT, 0), r);
      return RegT == RE ? r : B.CreateTrunc(r, RE);
    };
    if (!isa<FixedVectorType>(RT)) {
      B.CreateRet(one(x));
    } else {
      Value *v = PoisonValue::get(RT);
      for (unsigned i = 0; i < lanes; i++) {
        Value *e = B.CreateExtractElement(x, (uint64_t)i);
        v = B.CreateInsertElement(v, one(e), (uint64_t)i);
      }
      B.CreateRet(v);
    }
  }
}

namespace {

// The element type of a mangled 3-component vector parameter ("Dv3_f" -> float), or null.
Type *vec3Element(LLVMContext &C, const std::string &name) {
  size_t at = name.find("Dv3_");
  if (at == std::string::npos || at + 4 >= name.size()) return nullptr;
  switch (name[at + 4]) {
  case 'a': case 'c': case 'h': return Type::getInt8Ty(C);
  case 's': case 't': return Type::getInt16Ty(C);
  case 'i': case 'j': return Type::getInt32Ty(C);
  case 'l': case 'm': return Type::getInt64Ty(C);
  case 'f': return Type::getFloatTy(C);
  case 'd': return Type::getDoubleTy(C);
  case 'D': return at + 5 < name.size() && name[at + 5] == 'h' ? Type::getHalfTy(C) : nullptr;
  default: return nullptr;
  }
}

} // namespace

// Builtins libclc lacks on nvptx, defined here before it is linked:
// - async_work_group_copy / async_work_group_strided_copy and prefetch of 3-component vectors
//   (libclc has every other gentype). Each work-item of the group copies elements lid, lid + n,
//   ... (n the group's size); a 3-vector element is 4 components wide in memory. prefetch is a
//   hint: nothing to do.
// - get_local_size(d) for d outside 0..2 is 1 (OpenCL 1.2 6.12.1; libclc answers 0).
// - nan(nancode) (below).
// - work_group_barrier (below).
void defineMissingBuiltins(Module &M) {
  LLVMContext &C = M.getContext();
  Type *i32 = Type::getInt32Ty(C), *i64 = Type::getInt64Ty(C);
  auto prepare = [](Function *F) {
    F->setLinkage(GlobalValue::InternalLinkage);
    F->removeFnAttr(Attribute::NoInline);
    F->removeFnAttr(Attribute::OptimizeNone);
  };
  std::vector<Function *> decls;
  for (Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic()) decls.push_back(&F);
  for (Function *F : decls) {
    std::string name = F->getName().str();
    bool copy = name.rfind("_Z21async_work_group_copy", 0) == 0;
    bool strided = name.rfind("_Z29async_work_group_strided_copy", 0) == 0;
    if (name.rfind("_Z8prefetch", 0) == 0 && vec3Element(C, name) && F->getReturnType()->isVoidTy()) {
      prepare(F);
      ReturnInst::Create(C, BasicBlock::Create(C, "entry", F));
      continue;
    }
    if (name == "_Z14get_local_sizej" && F->arg_size() == 1 && F->getReturnType()->isIntegerTy(64)) {
      prepare(F);
      IRBuilder<> B(BasicBlock::Create(C, "entry", F));
      Value *d = F->getArg(0);
      Value *r[3] = {B.CreateIntrinsic(Intrinsic::nvvm_read_ptx_sreg_ntid_x, {}, {}),
                     B.CreateIntrinsic(Intrinsic::nvvm_read_ptx_sreg_ntid_y, {}, {}),
                     B.CreateIntrinsic(Intrinsic::nvvm_read_ptx_sreg_ntid_z, {}, {})};
      // One instruction per statement: the order of the IR does not depend on the C++ compiler's
      // order of evaluating arguments.
      Value *is2 = B.CreateICmpEQ(d, ConstantInt::get(i32, 2));
      Value *v = B.CreateSelect(is2, r[2], ConstantInt::get(i32, 1));
      Value *is1 = B.CreateICmpEQ(d, ConstantInt::get(i32, 1));
      v = B.CreateSelect(is1, r[1], v);
      Value *is0 = B.CreateICmpEQ(d, ConstantInt::get(i32, 0));
      v = B.CreateSelect(is0, r[0], v);
      B.CreateRet(B.CreateZExt(v, i64));
      continue;
    }
    // nan(nancode): a quiet NaN whatever the code (libclc ORs the code into the exponent only:
    // nan(0UL) was +inf, the CTS's printf double_limits).
    if (name.rfind("_Z3nan", 0) == 0 && F->arg_size() == 1 && F->getReturnType()->isFPOrFPVectorTy() &&
        F->getArg(0)->getType()->isIntOrIntVectorTy() &&
        F->getArg(0)->getType()->getScalarSizeInBits() == F->getReturnType()->getScalarSizeInBits()) {
      Type *RT = F->getReturnType(), *AT = F->getArg(0)->getType();
      unsigned bits = RT->getScalarSizeInBits();
      uint64_t quiet = bits == 64 ? 0x7ff8000000000000ULL : bits == 32 ? 0x7fc00000ULL : 0x7e00ULL;
      prepare(F);
      IRBuilder<> B(BasicBlock::Create(C, "entry", F));
      B.CreateRet(B.CreateBitCast(B.CreateOr(F->getArg(0), ConstantInt::get(AT, quiet)), RT));
      continue;
    }
    // work_group_barrier (OpenCL C 2.0/3.0; every barrier of SPIR-V translated for OpenCL 2.0):
    // libclc has only barrier, whose flags it takes. A device-wide scope (memory_scope_device 2,
    // all_svm_devices 3) with global memory in the flags (CLK_GLOBAL_MEM_FENCE 2) also makes the
    // work-item's global writes visible device-wide first: barrier orders them within the
    // work-group only.
    if ((name == "_Z18work_group_barrierj" || name == "_Z18work_group_barrierj12memory_scope") &&
        F->getReturnType()->isVoidTy() && F->arg_size() >= 1 && F->getArg(0)->getType() == i32 &&
        (F->arg_size() == 1 || F->getArg(1)->getType() == i32)) {
      prepare(F);
      F->addFnAttr(Attribute::Convergent);
      IRBuilder<> B(BasicBlock::Create(C, "entry", F));
      Value *flags = F->getArg(0);
      if (F->arg_size() == 2) {
        BasicBlock *fence = BasicBlock::Create(C, "fence", F);
        BasicBlock *bar = BasicBlock::Create(C, "barrier", F);
        // One builder call per statement (the instruction order must not depend on the C++
        // compiler's order of evaluating arguments).
        Value *global = B.CreateAnd(flags, ConstantInt::get(i32, 2));
        Value *hasGlobal = B.CreateICmpNE(global, ConstantInt::get(i32, 0));
        Value *isDevice = B.CreateICmpEQ(F->getArg(1), ConstantInt::get(i32, 2));
        Value *isAll = B.CreateICmpEQ(F->getArg(1), ConstantInt::get(i32, 3));
        Value *wide = B.CreateOr(isDevice, isAll);
        Value *both = B.CreateAnd(hasGlobal, wide);
        B.CreateCondBr(both, fence, bar);
        B.SetInsertPoint(fence);
        // membar.gl (LLVM 19's NVPTX selects no `fence` instruction).
        B.CreateIntrinsic(Intrinsic::nvvm_membar_gl, {}, {});
        B.CreateBr(bar);
        B.SetInsertPoint(bar);
      }
      FunctionCallee barrier =
          M.getOrInsertFunction("_Z7barrierj", FunctionType::get(Type::getVoidTy(C), {i32}, false));
      CallInst *call = B.CreateCall(barrier, {flags});
      call->addFnAttr(Attribute::Convergent);
      B.CreateRetVoid();
      continue;
    }
    if (!copy && !strided) continue;
    Type *ET = vec3Element(C, name);
    unsigned nargs = strided ? 5 : 4;
    if (!ET || F->arg_size() != nargs) continue;
    Value *dst = F->getArg(0), *src = F->getArg(1), *num = F->getArg(2);
    Value *stride = strided ? F->getArg(3) : nullptr;
    Value *event = F->getArg(nargs - 1);
    if (!dst->getType()->isPointerTy() || !src->getType()->isPointerTy() || !num->getType()->isIntegerTy(64))
      continue;
    bool toLocal = dst->getType()->getPointerAddressSpace() == 3;
    prepare(F);
    BasicBlock *entry = BasicBlock::Create(C, "entry", F);
    BasicBlock *loop = BasicBlock::Create(C, "loop", F);
    BasicBlock *done = BasicBlock::Create(C, "done", F);
    IRBuilder<> B(entry);
    auto sreg = [&](Intrinsic::ID id) { return B.CreateZExt(B.CreateIntrinsic(id, {}, {}), i64); };
    Value *nx = sreg(Intrinsic::nvvm_read_ptx_sreg_ntid_x), *ny = sreg(Intrinsic::nvvm_read_ptx_sreg_ntid_y);
    Value *nz = sreg(Intrinsic::nvvm_read_ptx_sreg_ntid_z);
    Value *tx = sreg(Intrinsic::nvvm_read_ptx_sreg_tid_x), *ty = sreg(Intrinsic::nvvm_read_ptx_sreg_tid_y);
    Value *tz = sreg(Intrinsic::nvvm_read_ptx_sreg_tid_z);
    Value *lid = B.CreateAdd(tx, B.CreateMul(nx, B.CreateAdd(ty, B.CreateMul(ny, tz))));
    Value *size = B.CreateMul(nx, B.CreateMul(ny, nz));
    B.CreateCondBr(B.CreateICmpULT(lid, num), loop, done);
    B.SetInsertPoint(loop);
    PHINode *i = B.CreatePHI(i64, 2);
    i->addIncoming(lid, entry);
    auto *V3 = FixedVectorType::get(ET, 3);
    uint64_t elem = 4 * ET->getPrimitiveSizeInBits() / 8;
    Align al(elem);
    Value *si = i, *di = i;
    if (strided) (toLocal ? si : di) = B.CreateMul(i, stride);
    Value *sp = B.CreateGEP(B.getInt8Ty(), src, B.CreateMul(si, ConstantInt::get(i64, elem)));
    Value *dp = B.CreateGEP(B.getInt8Ty(), dst, B.CreateMul(di, ConstantInt::get(i64, elem)));
    B.CreateAlignedStore(B.CreateAlignedLoad(V3, sp, al), dp, al);
    Value *next = B.CreateAdd(i, size);
    i->addIncoming(next, loop);
    B.CreateCondBr(B.CreateICmpULT(next, num), loop, done);
    B.SetInsertPoint(done);
    if (F->getReturnType()->isVoidTy()) B.CreateRetVoid();
    else if (F->getReturnType() == event->getType()) B.CreateRet(event);
    else B.CreateRet(Constant::getNullValue(F->getReturnType()));
  }
}
