(** * A runner for graphs with nested graphs, extracted from [Nested.v].

    The runner is [run_ng] of [Nested.v]: every graph, at every depth, is
    run by [run_fuel] (the [FileOrder] scheduler of spec/graph.rst section
    3.5), and an If or a Loop operation is interpreted by runs of its
    bodies with its captures bound from its implicit inputs (spec sections
    1.4 and 3.6). Under GRAPH-C1 at every depth, [nested_order_independence]
    and [nested_run_function] say that every schedule, at every depth, gives
    what this runner gives; the differential test
    ([tests/common/coq_nested.py]) compares [sonnx.model.semantics] with it.

    [Nested.v] leaves six parameters open, and its runner takes a fuel;
    they are fixed here, and the Python mirror of the test fixes them the
    same way:
    - [prim]: the operator table of [Extract.v], each result reduced modulo
      [modulus] so that values stay small however many Loop iterations
      feed each other (the table's own bounds argument in [Extract.v] is
      for flat graphs);
    - [truth]: a value is true when it is odd; an omitted condition is
      false (so a Loop whose condition is omitted runs no iteration, and a
      body is never given an undefined condition);
    - [of_nat]: the iteration number is the value itself;
    - [trips]: a given trip count [M] allows [M mod 4] iterations; a Loop
      without [M] runs while its condition holds;
    - [undef]: [undef_value], a number above every reduced value; the test
      generates bodies whose outputs are always defined, so it is a
      sentinel that shows up only if that fails;
    - [stack]: a Loop scan output is the weighted sum of [Extract.v] of the
      iteration values, reduced: it depends on every value, on their order
      and on their number;
    - the fuel: [nfuel] iterations at most for every Loop; a run in which a
      Loop needs more has no result ([run_ng] gives [None]), and the driver
      prints that outcome as such, never a value.

    The runner's run fails only when an operation gives a number of results
    other than its outputs or a Loop runs out of fuel. The driver refuses
    every block in which the first can happen (a table operation other than
    codes 0 to 3 or whose result count is not its number of outputs, an If
    without a condition or whose bodies' outputs are not its outputs, a
    Loop with fewer than two inputs or whose body does not give a condition
    and one value per output), so a failure it prints is an exhausted fuel.
    Nothing is assumed in Coq: the file defines, proves small lemmas and
    extracts; the extraction trusts one mapping beyond [ExtrOcamlNatInt]'s,
    that of [Nat.modulo] below. *)

From Coq Require Import List Arith.
From Coq Require Extraction ExtrOcamlBasic ExtrOcamlNatInt.
From SONNX Require Import Semantics Termination Errors ErrorTrace Nested Extract.
Import ListNotations.

(** [Nat.modulo] computes by repeated subtraction on the extracted [int];
    it is extracted to OCaml's [mod], guarded as Coq defines [n mod 0 = n].
    This mapping is trusted like those of [ExtrOcamlNatInt], and is exact
    for the non-negative numbers the driver accepts. *)
Extract Constant Nat.modulo => "(fun n m -> if m = 0 then n else n mod m)".

Definition modulus : nat := 1009.

Definition reduce (v : nat) : nat := Nat.modulo v modulus.

(** [prim]: operator [k] is entry [k] of the table [codes], shared by the
    graphs at every depth. *)
Definition nprim (codes : list opcode) (k : nat) (args imps : list (option nat)) : list nat :=
  map reduce (table_interp codes k args imps).

Definition ntruth (c : option nat) : bool :=
  match c with Some v => Nat.odd v | None => false end.

Definition nof_nat (k : nat) : nat := k.

Definition ntrips (m : nat) : nat := Nat.modulo m 4.

Definition undef_value : nat := 4096.

Definition nstack (l : list nat) : nat := reduce (weighted 1 (map Some l)).

(** The most iterations any Loop runs in the extracted runner. *)
Definition nfuel : nat := 8.

(** The interpretation of a graph's operations, [ng_interp] of [Nested.v]. *)
Definition ninterp (codes : list opcode) (g : graph) (kinds : nat -> @kind nat)
    : nat -> list (option nat) -> list (option nat) -> option (list nat) :=
  ng_interp (nprim codes) ntruth nof_nat ntrips undef_value nstack nfuel g kinds.

(** The outputs of a nested graph, [None] when a Loop ran out of fuel:
    [run_ng] of [Nested.v], instantiated. *)
Definition nested_outputs (codes : list opcode) (ng : @ngraph nat) (inp : list (option nat))
    (outer : nat -> option nat) : option (list (option nat)) :=
  run_ng (nprim codes) ntruth nof_nat ntrips undef_value nstack nfuel ng inp outer.

(** The initial state of the main graph, as [run_ng] builds it. *)
Definition nested_start (ng : @ngraph nat) (inp : list (option nat)) (outer : nat -> option nat)
    : @state nat :=
  match ng with NG g init _ => initial_state g (bind (g_inputs g) inp) init outer end.

(** The main graph's run inside [run_ng], with the state after each firing
    ([etrace_fuel] of [ErrorTrace.v], whose steps are the model's file-order
    firings by [error_trace_correct]). *)
Definition nested_trace (codes : list opcode) (ng : @ngraph nat) (inp : list (option nat))
    (outer : nat -> option nat) : list (nat * @state nat) * @estate nat :=
  match ng with
  | NG g init kinds => etrace_fuel (ninterp codes g kinds) g (length (g_ops g)) (nested_start ng inp outer)
  end.

(** The end of the trace the driver prints is the one [run_ng] takes its
    outcome from. *)
Lemma nested_trace_outputs : forall codes g init kinds inp outer,
  outcome g (snd (nested_trace codes (NG g init kinds) inp outer))
  = nested_outputs codes (NG g init kinds) inp outer.
Proof. intros. unfold nested_trace. rewrite etrace_fuel_end. reflexivity. Qed.

(** Every result of [prim] is below [modulus], so [undef_value] is not one. *)
Lemma nprim_small : forall codes k args imps v,
  In v (nprim codes k args imps) -> v < modulus.
Proof.
  intros codes k args imps v H. unfold nprim in H. apply in_map_iff in H.
  destruct H as [x [<- _]]. unfold reduce, modulus. apply Nat.mod_upper_bound. discriminate.
Qed.

Extraction "sonnx_nested.ml" nested_outputs nested_trace nested_start outputs_of executable_b.
