(** * A runner for graphs with nested graphs, extracted from [Nested.v].

    The runner is [run_ng] of [Nested.v]: every graph, at every depth, is
    run by [run_fuel] (the [FileOrder] scheduler of spec/graph.rst section
    3.5), and an If or a Loop operation is interpreted by runs of its
    bodies with its captures bound from its implicit inputs (spec sections
    1.4 and 3.6). Under GRAPH-C1 at every depth, [nested_order_independence]
    and [nested_run_function] say that every schedule, at every depth, gives
    what this runner gives; the differential test
    ([tests/common/coq_nested.py]) compares [sonnx.model.semantics] with it.

    [Nested.v] leaves six parameters open; they are fixed here, and the
    Python mirror of the test fixes them the same way:
    - [prim]: the operator table of [Extract.v], each result reduced modulo
      [modulus] so that values stay small however many Loop iterations
      feed each other (the table's own bounds argument in [Extract.v] is
      for flat graphs);
    - [truth]: a value is true when it is odd; an omitted condition is
      false (so a Loop whose condition is omitted runs no iteration, and a
      body is never given an undefined condition);
    - [of_nat]: the iteration number is the value itself;
    - [trips]: a given trip count [M] gives [M mod 4] iterations at most,
      an omitted one 2;
    - [undef]: [undef_value], a number above every reduced value; the test
      generates bodies whose outputs are always defined, so it is a
      sentinel that shows up only if that fails;
    - [stack]: a Loop scan output is the weighted sum of [Extract.v] of the
      iteration values, reduced: it depends on every value, on their order
      and on their number.

    The table's failing and short operators are total here ([Nested.v] has
    no error semantics; [Errors.v] covers failures for flat graphs), so the
    test does not give them to nested cases. Nothing is assumed in Coq: the
    file defines, proves two small lemmas and extracts; the extraction
    trusts one mapping beyond [ExtrOcamlNatInt]'s, that of [Nat.modulo]
    below. *)

From Coq Require Import List Arith.
From Coq Require Extraction ExtrOcamlBasic ExtrOcamlNatInt.
From SONNX Require Import Semantics Termination Nested Extract.
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

Definition ntrips (m : option nat) : nat :=
  match m with Some v => Nat.modulo v 4 | None => 2 end.

Definition undef_value : nat := 4096.

Definition nstack (l : list nat) : nat := reduce (weighted 1 (map Some l)).

(** The interpretation of a graph's operations, [ng_interp] of [Nested.v]. *)
Definition ninterp (codes : list opcode) (g : graph) (kinds : nat -> @kind nat)
    : nat -> list (option nat) -> list (option nat) -> list nat :=
  ng_interp (nprim codes) ntruth nof_nat ntrips undef_value nstack g kinds.

(** The outputs of a nested graph: [run_ng] of [Nested.v], instantiated. *)
Definition nested_outputs (codes : list opcode) (ng : @ngraph nat) (inp : list (option nat))
    (outer : nat -> option nat) : list (option nat) :=
  run_ng (nprim codes) ntruth nof_nat ntrips undef_value nstack ng inp outer.

(** The initial state of the main graph, as [run_ng] builds it. *)
Definition nested_start (ng : @ngraph nat) (inp : list (option nat)) (outer : nat -> option nat)
    : @state nat :=
  match ng with NG g init _ => initial_state g (bind (g_inputs g) inp) init outer end.

(** The final state of the main graph's run inside [run_ng]. *)
Definition nested_final (codes : list opcode) (ng : @ngraph nat) (inp : list (option nat))
    (outer : nat -> option nat) : @state nat :=
  match ng with
  | NG g init kinds => run_fuel (ninterp codes g kinds) g (length (g_ops g)) (nested_start ng inp outer)
  end.

(** One firing of a main-graph operation, for a step-by-step comparison. *)
Definition nested_fire (codes : list opcode) (ng : @ngraph nat) (s : @state nat) (i : nat) : @state nat :=
  match ng with NG g _ kinds => fire (ninterp codes g kinds) g s i end.

(** The state the driver prints is the one [run_ng] takes its outputs from. *)
Lemma nested_final_outputs : forall codes g init kinds inp outer,
  outputs_of g (nested_final codes (NG g init kinds) inp outer)
  = nested_outputs codes (NG g init kinds) inp outer.
Proof. reflexivity. Qed.

(** Every result of [prim] is below [modulus], so [undef_value] is not one. *)
Lemma nprim_small : forall codes k args imps v,
  In v (nprim codes k args imps) -> v < modulus.
Proof.
  intros codes k args imps v H. unfold nprim in H. apply in_map_iff in H.
  destruct H as [x [<- _]]. unfold reduce, modulus. apply Nat.mod_upper_bound. discriminate.
Qed.

Extraction "sonnx_nested.ml" nested_outputs nested_final nested_start nested_fire outputs_of executable_b.
