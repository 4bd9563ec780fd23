(** * The checked rules give the premises of exactly-once firing.

    [Termination.exactly_once] assumes acyclicity (a strict rank) and that
    every consumed tensor has an origin ([has_origin]). This file proves
    that GRAPH-C1 and GRAPH-C1-SOURCES, GRAPH-C3 (static form), GRAPH-R1 and
    acyclicity give the origin premise ([rules_give_origins]), and so
    exactly-once firing from the initial state
    ([exactly_once_under_rules]). The argument: by R1 every operation has an
    output that is a graph output or consumed by an operation of higher
    rank; following consumers ends at a graph output, which C3 makes
    derivable; by C1 a derivable output of an operation can only be derived
    through that operation, so its consumed tensors are derivable too. *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence C3.
Import ListNotations.

Section Premises.

Context {V : Type}.
Variable interp : nat -> list (option V) -> list (option V) -> list V.
Variable g : graph.

Local Notation state := (@state V).

(** GRAPH-R1: every operation has an output that some operation consumes
    or that is a graph output. "Consumes" is [required]: the non-omitted
    explicit inputs and the implicit ones. *)
Definition r1 : Prop :=
  forall j oj, nth_error (g_ops g) j = Some oj ->
    exists u, In (Some u) (op_outputs oj) /\
      (In u (g_outputs g) \/ exists k ok, nth_error (g_ops g) k = Some ok /\ In u (required ok)).

(** Under C1, an output of operation [j] is derivable only through [j]:
    so every tensor [j] consumes is derivable. *)
Lemma derivable_output_inv : forall (s0 : state) j oj u,
  c1_assign g -> (forall t, defined s0 t -> source g t) ->
  nth_error (g_ops g) j = Some oj -> In (Some u) (op_outputs oj) ->
  derivable g s0 u -> forall t, In t (required oj) -> derivable g s0 t.
Proof.
  intros s0 j oj u [Hsingle Hsrc] Hs0 Hoj Hu Hder.
  inversion Hder as [u' Hd | i o u' Ho Hreq Hout]; subst.
  - exfalso. apply (Hsrc j oj u Hoj Hu). apply Hs0. exact Hd.
  - assert (i = j) as -> by (apply (Hsingle i j o oj u); auto).
    rewrite Ho in Hoj. injection Hoj as <-. exact Hreq.
Qed.

(** How many operations have a rank above [r]: it decreases along
    consumers. *)
Definition above (rank : nat -> nat) (r : nat) : nat :=
  length (filter (fun k => r <? rank k) (seq 0 (length (g_ops g)))).

Lemma above_lt : forall rank j k,
  k < length (g_ops g) -> rank j < rank k -> above rank (rank k) < above rank (rank j).
Proof.
  intros rank j k Hk Hjk. unfold above. apply (filter_length_lt _ _ _ k).
  - intros x _ Hx. apply Nat.ltb_lt in Hx. apply Nat.ltb_lt. lia.
  - apply in_seq. lia.
  - apply Nat.ltb_lt. exact Hjk.
  - apply Nat.ltb_ge. lia.
Qed.

(** Under C1, C3 (static form), R1 and a strict rank, every tensor an
    operation consumes is derivable. *)
Lemma consumed_derivable : forall (s0 : state) rank,
  c1_assign g -> c3_fixpoint g s0 -> r1 -> ranked g rank ->
  (forall t, defined s0 t -> source g t) ->
  forall j oj t, nth_error (g_ops g) j = Some oj -> In t (required oj) -> derivable g s0 t.
Proof.
  intros s0 rank Hc1 Hc3 Hr1 Hrank Hs0 j.
  remember (above rank (rank j)) as a eqn:Ha. revert j Ha.
  induction a as [a IH] using lt_wf_ind. intros j Ha oj t Hoj Ht.
  destruct (Hr1 j oj Hoj) as [u [Hu [Hgo | [k [ok [Hok Huk]]]]]].
  - apply (derivable_output_inv s0 j oj u); auto.
  - apply (derivable_output_inv s0 j oj u); auto.
    apply (IH (above rank (rank k))) with (j := k) (oj := ok); auto.
    subst a. apply (above_lt rank j k).
    + apply nth_error_Some. rewrite Hok. discriminate.
    + apply (Hrank j k oj ok u); auto.
Qed.

(** C1, C3, R1 and acyclicity give the origin premise of
    [exactly_once]. *)
Theorem rules_give_origins : forall (s0 : state) rank,
  c1_assign g -> c3_fixpoint g s0 -> r1 -> ranked g rank ->
  (forall t, defined s0 t -> source g t) -> has_origin g s0.
Proof.
  intros s0 rank Hc1 Hc3 Hr1 Hrank Hs0 j oj t Hoj Ht.
  destruct (consumed_derivable s0 rank Hc1 Hc3 Hr1 Hrank Hs0 j oj t Hoj Ht) as [t' Hd | i o t' Ho _ Hout].
  - left. exact Hd.
  - right. exists i, o. split; assumption.
Qed.

(** Exactly-once firing from the initial state under the checked rules
    GRAPH-C1, GRAPH-C3, GRAPH-R1 and acyclicity (a strict rank), for
    operators that give one value per output entry. *)
Theorem exactly_once_under_rules : forall (inp init outer : nat -> option V) rank s,
  arity_ok interp g -> c1_assign g -> c3_fixpoint g (initial_state g inp init outer) -> r1 ->
  ranked g rank ->
  maximal_run interp g (initial_state g inp init outer) s ->
  NoDup (fired s) /\ (forall i, In i (fired s) <-> i < length (g_ops g)).
Proof.
  intros inp init outer rank s Har Hc1 Hc3 Hr1 Hrank Hrun.
  apply (exactly_once interp g rank (initial_state g inp init outer)); auto.
  apply (rules_give_origins _ rank); auto.
  apply initial_vals_source.
Qed.

End Premises.

Print Assumptions rules_give_origins.
Print Assumptions exactly_once_under_rules.
