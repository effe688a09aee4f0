// Loops that step by a run-time stride (grid-stride and work-group-stride loops), unrolled in
// chunks whose iterations are proven to run, so that their loads are in flight together.
//
//   for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) acc += x[i];
//
// keeps one load in flight per work-item: the add waits for it, and the next iteration's load
// comes after the loop's exit test, which ptxas does not speculate a load across. LLVM does not
// unroll it: its trip count is a division by the stride (expensive to expand, and not even
// computable when `i += s` may wrap), and `#pragma unroll` keeps an exit test after every copy.
// Here such a loop becomes
//
//   while (i < n && n - i > 3 * s) { body(i); body(i + s); body(i + 2s); body(i + 3s); i += 4s; }
//   the original loop from i (the iterations left: fewer than four)
//
// The test proves that the original would run all four iterations (i + k*s < n for k < 4,
// without overflow: below), so the four bodies need no test between them and run in the
// original order: the results are bit for bit the original's (a float sum adds in the same
// order). A work-item with fewer than four iterations pays the test once (3 instructions).
//
// Only innermost single-block loops whose body reads memory and has no other effect (no store,
// no call with effects, nothing convergent), of at most kMaxBody instructions, with an exit test
// `i + s < n` (unsigned or signed) on the latch, s loop-invariant and not a constant (LLVM's
// own runtime unrolling handles constant strides). Loops with unroll metadata of their own
// (`#pragma unroll`/`nounroll`) keep LLVM's treatment: its simplification pipeline has unrolled
// a `#pragma unroll N` loop (an exit test after each copy) before this pass runs; a count N
// still found here becomes the chunk.
//
// The test may be on the step's low bits (`int j` stepped by a size_t, `j += get_local_size(0)`:
// a 64-bit add, the test on its truncation): the chunk test is then made on those bits.
//
// Overflow: s <=u MAX/4 is tested once (so 3s does not wrap) and, for a signed test, s >s 0.
// Where i < n (signed or unsigned as the test) the exact difference n - i lies in [1, 2^w - 1],
// so the wrapping subtraction gives it as an unsigned value; n - i > 3s then gives
// i < i + s < i + 2s < i + 3s < n exactly, inside the type's range, so the adds of the body's
// copies neither wrap nor overflow (their nuw/nsw flags stay true). The fourth step i + 4s is
// the original latch's add and test, as in the original.
#include "bridge.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

using namespace llvm;

// A knob of pipeline.rs (PTXGEN_STRIDE_UNROLL): the chunk, 0 or 1 to leave these loops alone.
static cl::opt<unsigned> StrideUnroll("ptxgen-stride-unroll", cl::init(0), cl::Hidden,
                                      cl::desc("unroll run-time-stride loops in proven chunks"));

namespace {

constexpr unsigned kMaxBody = 48;
constexpr unsigned kMaxChunk = 16;

// The loop's shape, once recognised.
struct StrideLoop {
  BasicBlock *preheader, *block, *exit;
  PHINode *iv;
  Value *stride, *end; // loop-invariant
  bool isSigned;
  // The test compares the step's low bits (`int j` stepped by a size_t, `j += get_local_size(0)`:
  // the add is 64-bit, the test on its truncation); the chunk test then works on those bits.
  bool narrow;
  unsigned chunk;
};

// Whether x is iv or holds iv's low `bits` bits (clang's `(long)(int)iv`: shl + ashr, or a
// sext/zext of a trunc).
bool lowBitsOf(Value *x, PHINode *iv, unsigned bits) {
  if (x == iv) return true;
  unsigned wide = iv->getType()->getIntegerBitWidth();
  const APInt *a, *b;
  using namespace PatternMatch;
  if (match(x, m_AShr(m_Shl(m_Specific(iv), m_APInt(a)), m_APInt(b))) ||
      match(x, m_LShr(m_Shl(m_Specific(iv), m_APInt(a)), m_APInt(b))))
    return *a == *b && a->getZExtValue() <= wide - bits;
  Value *t;
  if (match(x, m_SExt(m_Value(t))) || match(x, m_ZExt(m_Value(t))))
    return match(t, m_Trunc(m_Specific(iv))) && t->getType()->getIntegerBitWidth() >= bits;
  return false;
}

// The unroll count of the loop's metadata: 0 none, 1 "do not unroll" (or full unrolling asked
// for: LLVM's business), N `#pragma unroll N`.
unsigned pragmaCount(Loop *L) {
  MDNode *md = L->getLoopID();
  if (!md) return 0;
  for (const MDOperand &op : md->operands()) {
    auto *node = dyn_cast<MDNode>(op.get());
    if (!node || node->getNumOperands() == 0) continue;
    auto *name = dyn_cast<MDString>(node->getOperand(0));
    if (!name || !name->getString().starts_with("llvm.loop.unroll.")) continue;
    if (name->getString() == "llvm.loop.unroll.count" && node->getNumOperands() == 2)
      if (auto *c = mdconst::dyn_extract<ConstantInt>(node->getOperand(1)))
        return (unsigned)std::min<uint64_t>(c->getZExtValue(), kMaxChunk);
    return 1;
  }
  return 0;
}

bool bodyQualifies(BasicBlock *B) {
  unsigned size = 0;
  bool loads = false;
  for (Instruction &I : *B) {
    if (isa<PHINode>(I) || I.isTerminator()) continue;
    if (++size > kMaxBody) return false;
    if (I.mayHaveSideEffects() || I.mayWriteToMemory()) return false;
    if (auto *call = dyn_cast<CallBase>(&I); call && (call->isConvergent() || call->isInlineAsm() ||
                                                      !call->getCalledFunction()))
      return false;
    if (auto *load = dyn_cast<LoadInst>(&I)) {
      if (!load->isSimple()) return false;
      loads = true;
    }
  }
  return loads;
}

// The loop's shape, or nothing. `ready`: the loop has a preheader, an exit block of its own, and
// the values used after the loop go through that block's phis (LCSSA); without it only the rest
// is checked.
std::optional<StrideLoop> recognise(Loop *L, unsigned defaultChunk, bool ready) {
  if (!L->isInnermost() || L->getNumBlocks() != 1) return std::nullopt;
  BasicBlock *B = L->getHeader(), *PH = L->getLoopPreheader(), *E = L->getExitBlock();
  if (!E) return std::nullopt;
  unsigned chunk = pragmaCount(L);
  if (chunk == 1) return std::nullopt;
  if (chunk == 0) chunk = defaultChunk;
  if (chunk < 2) return std::nullopt;
  auto *br = dyn_cast<BranchInst>(B->getTerminator());
  if (!br || !br->isConditional()) return std::nullopt;
  auto *cmp = dyn_cast<ICmpInst>(br->getCondition());
  if (!cmp || !cmp->hasOneUse()) return std::nullopt;
  // The predicate under which the loop goes on, with the step on the left.
  ICmpInst::Predicate pred = cmp->getPredicate();
  if (br->getSuccessor(0) != B) pred = ICmpInst::getInversePredicate(pred);
  Value *lhs = cmp->getOperand(0), *rhs = cmp->getOperand(1);
  if (L->isLoopInvariant(lhs)) {
    std::swap(lhs, rhs);
    pred = ICmpInst::getSwappedPredicate(pred);
  }
  if ((pred != ICmpInst::ICMP_ULT && pred != ICmpInst::ICMP_SLT) || !L->isLoopInvariant(rhs))
    return std::nullopt;
  bool narrow = false;
  if (auto *t = dyn_cast<TruncInst>(lhs)) lhs = t->getOperand(0), narrow = true;
  auto *step = dyn_cast<BinaryOperator>(lhs);
  if (!step || step->getOpcode() != Instruction::Add || step->getParent() != B) return std::nullopt;
  unsigned bits = cmp->getOperand(0)->getType()->getIntegerBitWidth();
  if (!bodyQualifies(B)) return std::nullopt;
  if (ready) {
    if (!PH || !isa<BranchInst>(PH->getTerminator()) || E->getSinglePredecessor() != B)
      return std::nullopt;
    for (Instruction &I : *B)
      for (User *U : I.users())
        if (auto *UI = cast<Instruction>(U);
            UI->getParent() != B && !(isa<PHINode>(UI) && UI->getParent() == E))
          return std::nullopt;
  }
  for (PHINode &iv : B->phis()) {
    if (iv.getIncomingValueForBlock(B) != step) continue;
    for (unsigned k = 0; k < 2; k++) {
      Value *x = step->getOperand(k), *stride = step->getOperand(1 - k);
      if (isa<Constant>(stride) || !L->isLoopInvariant(stride)) continue;
      if (narrow ? lowBitsOf(x, &iv, bits) : x == &iv)
        return StrideLoop{PH, B, E, &iv, stride, rhs, pred == ICmpInst::ICMP_SLT, narrow, chunk};
    }
  }
  return std::nullopt;
}

// The copies of the loop block's instructions in the chunk: copy k of instruction I.
struct Copies {
  BasicBlock *B;
  PHINode *iv;
  const std::vector<Value *> &ivs;       // i + k*s
  std::map<PHINode *, PHINode *> chunkPhi; // a loop phi's value entering the chunk
  std::vector<DenseMap<Value *, Value *>> made;

  // v's value in copy k: made already, from outside the block, a phi's (the previous copy's latch
  // value, or entering the chunk); null when not made yet.
  Value *valueIn(unsigned k, Value *v) {
    if (v == iv) return ivs[k];
    if (auto *phi = dyn_cast<PHINode>(v); phi && phi->getParent() == B)
      return k == 0 ? chunkPhi.at(phi) : valueIn(k - 1, phi->getIncomingValueForBlock(B));
    auto *I = dyn_cast<Instruction>(v);
    if (!I || I->getParent() != B) return v;
    auto it = made[k].find(I);
    return it == made[k].end() ? nullptr : it->second;
  }

  // The order to make them in: by instruction, then copy (all copies' loads first, then their
  // uses: in the PTX the chunk's loads are in flight together; ptxas does not reliably hoist a
  // load above the previous copy's arithmetic), where every operand is made before its use
  // (a value carried from a later instruction of the previous copy would not be); by copy
  // otherwise, which always is.
  std::vector<std::pair<unsigned, Instruction *>> order() {
    std::vector<Instruction *> body;
    for (Instruction &I : *B)
      if (!isa<PHINode>(I) && !I.isTerminator()) body.push_back(&I);
    std::vector<std::pair<unsigned, Instruction *>> rows;
    bool ok = true;
    for (Instruction *I : body)
      for (unsigned k = 0; k < made.size(); k++) {
        for (Value *op : I->operands()) ok &= valueIn(k, op) != nullptr;
        made[k][I] = I; // a stand-in: only whether it is made counts here
        rows.push_back({k, I});
      }
    for (auto &m : made) m.clear();
    if (ok) return rows;
    std::vector<std::pair<unsigned, Instruction *>> copies;
    for (unsigned k = 0; k < made.size(); k++)
      for (Instruction *I : body) copies.push_back({k, I});
    return copies;
  }
};

void unroll(StrideLoop &S) {
  BasicBlock *B = S.block;
  Function *F = B->getParent();
  LLVMContext &C = F->getContext();
  auto *T = cast<IntegerType>(S.end->getType());
  // The preheader: the stride's bound, and (chunk - 1) * s.
  IRBuilder<> P(S.preheader->getTerminator());
  Value *stride = S.narrow ? P.CreateTrunc(S.stride, T, "stride.low") : S.stride;
  APInt maxStride = APInt::getMaxValue(T->getBitWidth()).udiv(APInt(T->getBitWidth(), S.chunk));
  Value *strideOk = P.CreateICmpULE(stride, ConstantInt::get(T, maxStride), "stride.small");
  if (S.isSigned)
    strideOk = P.CreateAnd(strideOk, P.CreateICmpSGT(stride, ConstantInt::get(T, 0)), "stride.ok");
  Value *span = P.CreateMul(stride, ConstantInt::get(T, S.chunk - 1), "stride.span");

  BasicBlock *test = BasicBlock::Create(C, "chunk.test", F, B);
  BasicBlock *body = BasicBlock::Create(C, "chunk.body", F, B);
  S.preheader->getTerminator()->replaceUsesOfWith(B, test);

  // The chunk test: a phi per loop phi, then i < n && n - i > (chunk - 1) * s.
  IRBuilder<> TB(test);
  std::vector<std::pair<PHINode *, PHINode *>> phis; // (loop phi, chunk phi)
  for (PHINode &phi : B->phis()) {
    PHINode *cp = TB.CreatePHI(phi.getType(), 2, phi.getName() + ".chunk");
    cp->addIncoming(phi.getIncomingValueForBlock(S.preheader), S.preheader);
    phis.push_back({&phi, cp});
  }
  PHINode *ivChunk = nullptr;
  for (auto &[phi, cp] : phis)
    if (phi == S.iv) ivChunk = cp;
  Value *i = S.narrow ? TB.CreateTrunc(ivChunk, T, "i.low") : ivChunk;
  Value *inRange = S.isSigned ? TB.CreateICmpSLT(i, S.end) : TB.CreateICmpULT(i, S.end);
  Value *room = TB.CreateICmpUGT(TB.CreateSub(S.end, i), span);
  Value *go = TB.CreateAnd(TB.CreateAnd(strideOk, inRange), room, "chunk.go");
  TB.CreateCondBr(go, body, B);

  // The chunk: the block's instructions `chunk` times, each copy's phis the previous copy's
  // latch values, but the copies' i: i + k*s, which the test proved exact (nuw or nsw: LLVM may
  // then fold the copies' addresses into one base and constant multiples of the stride). The
  // last copy's latch test goes back to the chunk test or leaves.
  IRBuilder<> UB(body);
  std::vector<Value *> ivs{ivChunk};
  for (unsigned k = 1; k < S.chunk && !S.narrow; k++) {
    Value *ks = P.CreateMul(S.stride, ConstantInt::get(T, k), "stride.x" + Twine(k));
    ivs.push_back(UB.CreateAdd(ivChunk, ks, S.iv->getName() + ".k" + Twine(k), !S.isSigned, S.isSigned));
  }
  // (Narrow: the bits above the test's are the program's business; the copies step as it does.)
  Copies copies{B, S.narrow ? nullptr : S.iv, ivs, {}, std::vector<DenseMap<Value *, Value *>>(S.chunk)};
  for (auto &[phi, cp] : phis) copies.chunkPhi[phi] = cp;
  for (auto [k, I] : copies.order()) {
    Instruction *copy = I->clone();
    copy->setName(I->getName());
    copy->insertInto(body, body->end());
    for (Use &op : copy->operands()) op.set(copies.valueIn(k, op.get()));
    copies.made[k][I] = copy;
  }
  unsigned last = S.chunk - 1;
  auto *latch = cast<BranchInst>(B->getTerminator());
  Value *cond = copies.valueIn(last, latch->getCondition());
  BasicBlock *onTrue = latch->getSuccessor(0) == B ? test : S.exit;
  BasicBlock *onFalse = latch->getSuccessor(0) == B ? S.exit : test;
  BranchInst::Create(onTrue, onFalse, cond, body);
  for (auto &[phi, cp] : phis) cp->addIncoming(copies.valueIn(last, phi->getIncomingValueForBlock(B)), body);
  for (PHINode &out : S.exit->phis()) out.addIncoming(copies.valueIn(last, out.getIncomingValueForBlock(B)), body);

  // The original loop runs what is left, entered from the chunk test.
  for (auto &[phi, cp] : phis) {
    phi->setIncomingBlock(phi->getBasicBlockIndex(S.preheader), test);
    phi->setIncomingValue(phi->getBasicBlockIndex(test), cp);
  }
  // It runs fewer than `chunk` iterations (but for strides too large to chunk): not worth
  // LLVM's unrolling, whatever its metadata said.
  MDNode *disable = MDNode::get(C, MDString::get(C, "llvm.loop.unroll.disable"));
  MDNode *self = MDNode::getDistinct(C, {nullptr, disable});
  self->replaceOperandWith(0, self);
  latch->setMetadata(LLVMContext::MD_loop, self);
}

struct StrideUnrollPass : PassInfoMixin<StrideUnrollPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
    DominatorTree &DT = FAM.getResult<DominatorTreeAnalysis>(F);
    bool changed = false;
    std::vector<StrideLoop> found;
    for (Loop *L : LI.getLoopsInPreorder()) {
      if (!recognise(L, StrideUnroll, false)) continue;
      // A preheader and an exit block of the loop's own (outside loop passes, the optimiser's
      // loops may share both with the test that skips the loop), and the values used after the
      // loop through the exit block's phis.
      if (!L->getLoopPreheader()) changed |= InsertPreheaderForLoop(L, &DT, &LI, nullptr, false) != nullptr;
      changed |= formDedicatedExitBlocks(L, &DT, &LI, nullptr, false);
      changed |= formLCSSA(*L, DT, &LI, nullptr);
      if (auto S = recognise(L, StrideUnroll, true)) found.push_back(*S);
    }
    for (StrideLoop &S : found) unroll(S);
    return changed || !found.empty() ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

} // namespace

void addStrideUnroll(PassBuilder &PB) {
  PB.registerVectorizerStartEPCallback([](FunctionPassManager &FPM, OptimizationLevel) {
    if (StrideUnroll > 1) FPM.addPass(StrideUnrollPass());
  });
}
