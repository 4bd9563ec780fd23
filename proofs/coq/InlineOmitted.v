(** * Calls that omit an output: running the call as a nested graph still
    gives the result of inlining it (spec/graph.rst, section 3.6,
    GRAPH-FUNCTIONS).

    A call may leave an optional output unnamed (an omitted entry of its
    output mapping); inlining gives the body's tensor for that output a
    fresh name like any internal tensor. [inline_matches_nested_omitted]
    extends [Inline.inline_matches_nested] to such calls: the caller's
    maximal runs under the nested reading and the inlined graph's maximal
    runs agree on every tensor the caller mentions, the graph outputs among
    them.

    The proof names each omitted output by its fresh image (the caller
    [gplus], which differs from the caller only at the call), notes that
    [gplus] and the caller inline to the same graph, and shows that their
    nested runs agree on every tensor but those extra names, which no
    operation of the caller reads. Calls that omit inputs as well:
    [InlineOmittedInput.v], which reduces them to this theorem. *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence C3 InlineGraph Inline.
Import ListNotations.

(** ** Lists with one element replaced *)

Lemma nth_error_replace : forall {A : Type} (l1 l2 : list A) a b i,
  i <> length l1 -> nth_error (l1 ++ a :: l2) i = nth_error (l1 ++ b :: l2) i.
Proof.
  intros A l1. induction l1 as [| x l1 IH]; intros l2 a b i Hi; destruct i as [| i]; simpl in *; auto; lia.
Qed.

Lemma nth_error_middle : forall {A : Type} (l1 l2 : list A) a, nth_error (l1 ++ a :: l2) (length l1) = Some a.
Proof. intros A l1. induction l1 as [| x l1 IH]; intros l2 a; simpl; auto. Qed.

Lemma firstn_skipn_middle : forall {A : Type} (l1 l2 : list A) a,
  firstn (length l1) (l1 ++ a :: l2) = l1 /\ skipn (S (length l1)) (l1 ++ a :: l2) = l2.
Proof.
  intros A l1. induction l1 as [| x l1 IH]; intros l2 a; simpl; auto.
  destruct (IH l2 a) as [E1 E2]. rewrite E1. auto.
Qed.

(** A write whose output mapping names, where the other has an omitted
    entry, only tensors other than [t] gives [t] the same value. *)
Lemma write_extra : forall {V : Type} t outs outs' (rs : list V) f f',
  Forall2 (fun e e' => e = e' \/ (e = None /\ exists n, e' = Some n /\ n <> t)) outs outs' ->
  f t = f' t -> write outs rs f t = write outs' rs f' t.
Proof.
  intros V t outs outs' rs f f' H. revert rs f f'.
  induction H as [| e e' outs outs' He _ IH]; intros rs f f' Ht; simpl; auto.
  destruct rs as [| r rs]; [destruct e, e'; exact Ht |].
  destruct He as [<- | [-> [n [-> Hn]]]].
  - destruct e as [n |]; apply IH; auto. unfold update. destruct (Nat.eqb t n); auto.
  - apply IH. unfold update. destruct (Nat.eqb_spec t n); [congruence | exact Ht].
Qed.

Section Omitted.

Context {V : Type}.
Variable it : nat -> list (option V) -> list (option V) -> list V.
Variable ib : nat -> list (option V) -> list (option V) -> list V.
Variable undef : V.
Variable g : graph.
Variable c : nat.
Variable fb : graph.
Variable ren : nat -> nat.
(** The call's output mapping, where an entry may be omitted. *)
Variable couts : list (option nat).

Local Notation fin := (g_inputs fb).
Local Notation fout := (g_outputs fb).
Local Notation nested_interp := (InlineGraph.nested_interp it ib undef c fb).
Local Notation call_op := (InlineGraph.call_op fb ren).
Local Notation g_tensor := (InlineGraph.g_tensor g).
Local Notation nothing := (@InlineGraph.nothing V).

(** The call as written: actual input [k] is [ren (fin k)]; output [k] is
    [couts k]. *)
Definition call_omit : operation := mkOp (map (fun x => Some (ren x)) fin) [] couts.

(** The caller with every output of the call named, as [call_op] names it. *)
Definition gplus : graph :=
  mkGraph (g_inputs g) (g_inits g) (g_captures g)
    (firstn c (g_ops g) ++ call_op :: skipn (S c) (g_ops g)) (g_outputs g).

(** A name the call of [gplus] writes but the caller does not mention. *)
Definition extra (t : nat) : Prop := In (Some t) (op_outputs call_op) /\ ~ g_tensor t.

Section Proofs.

Hypothesis H_callo : nth_error (g_ops g) c = Some call_omit.
Hypothesis H_couts : Forall2 (fun e y => e = Some (ren y) \/ (e = None /\ ~ g_tensor (ren y))) couts fout.
Hypothesis H_inj : forall u x, ~ In x fin -> ren u = ren x -> u = x.
Hypothesis H_c1g : c1_assign g.
Hypothesis H_noinit : g_inits fb = [].
Hypothesis H_nocap : g_captures fb = [].
Hypothesis H_io : forall u, In u fin -> ~ In u fout.
Hypothesis H_fresh : forall u, internal fb u -> ~ g_tensor (ren u).
Hypothesis H_c1b : c1_assign fb.
Hypothesis H_arb : arity_ok ib fb.
Hypothesis H_c3b : forall inp, (forall x, In x fin -> inp x <> None) ->
  c3_fixpoint fb (initial_state fb inp nothing nothing).

Lemma split_g : g_ops g = firstn c (g_ops g) ++ call_omit :: skipn (S c) (g_ops g) /\
  length (firstn c (g_ops g)) = c.
Proof. apply split_at. exact H_callo. Qed.

Lemma gplus_at : nth_error (g_ops gplus) c = Some call_op.
Proof.
  destruct split_g as [_ L]. simpl.
  pose proof (nth_error_middle (firstn c (g_ops g)) (skipn (S c) (g_ops g)) call_op) as H.
  rewrite L in H. exact H.
Qed.

Lemma gplus_other : forall i, i <> c -> nth_error (g_ops gplus) i = nth_error (g_ops g) i.
Proof.
  intros i Hi. destruct split_g as [E L]. simpl.
  transitivity (nth_error (firstn c (g_ops g) ++ call_omit :: skipn (S c) (g_ops g)) i).
  - apply nth_error_replace. lia.
  - rewrite <- E. reflexivity.
Qed.

Lemma nth_gplus : forall i o, nth_error (g_ops gplus) i = Some o <->
  (i = c /\ o = call_op) \/ (i <> c /\ nth_error (g_ops g) i = Some o).
Proof.
  intros i o. destruct (Nat.eq_dec i c) as [-> | Hne].
  - rewrite gplus_at. split.
    + intros Hx. injection Hx as <-. left. auto.
    + intros [[_ <-] | [Hc _]]; [reflexivity | contradiction].
  - rewrite (gplus_other i Hne). split; [intros Hx; right; split; assumption |].
    intros [[Hc _] | [_ Hx]]; [contradiction | exact Hx].
Qed.

Lemma inline_gplus : inline_graph gplus c fb ren = inline_graph g c fb ren.
Proof.
  destruct split_g as [_ L]. unfold inline_graph, inline_ops. f_equal.
  change (g_ops gplus) with (firstn c (g_ops g) ++ call_op :: skipn (S c) (g_ops g)).
  destruct (firstn_skipn_middle (firstn c (g_ops g)) (skipn (S c) (g_ops g)) call_op) as [E1 E2].
  rewrite L in E1, E2. rewrite E1, E2. reflexivity.
Qed.

Lemma same_inputs : forall i o o', nth_error (g_ops g) i = Some o -> nth_error (g_ops gplus) i = Some o' ->
  op_inputs o' = op_inputs o /\ op_implicit o' = op_implicit o.
Proof.
  intros i o o' Ho Ho'. apply nth_gplus in Ho'. destruct Ho' as [[-> ->] | [_ Ho']].
  - rewrite H_callo in Ho. injection Ho as <-. auto.
  - rewrite Ho in Ho'. injection Ho' as ->. auto.
Qed.

Lemma gplus_op : forall i o, nth_error (g_ops g) i = Some o -> exists o', nth_error (g_ops gplus) i = Some o'.
Proof.
  intros i o Ho. destruct (Nat.eq_dec i c) as [-> | Hne].
  - exists call_op. apply nth_gplus. auto.
  - exists o. apply nth_gplus. auto.
Qed.

Lemma g_op : forall i o', nth_error (g_ops gplus) i = Some o' -> exists o, nth_error (g_ops g) i = Some o.
Proof.
  intros i o' Ho'. apply nth_gplus in Ho'. destruct Ho' as [[-> _] | [_ Ho]]; eauto.
Qed.

(** The two callers' states: equal on every name but the extra ones, same
    operations fired. *)
Definition rel (s sp : @state V) : Prop :=
  (forall t, ~ extra t -> vals sp t = vals s t) /\ (forall i, In i (fired sp) <-> In i (fired s)).

Lemma required_not_extra : forall i o t, nth_error (g_ops g) i = Some o -> In t (required o) -> ~ extra t.
Proof. intros i o t Ho Ht [_ Hg]. apply Hg. right. right. exists i, o. auto. Qed.

Lemma rel_required : forall s sp i o o', rel s sp ->
  nth_error (g_ops g) i = Some o -> nth_error (g_ops gplus) i = Some o' ->
  required o' = required o /\ forall n, In n (required o) -> vals sp n = vals s n.
Proof.
  intros s sp i o o' [Hv _] Ho Ho'. destruct (same_inputs i o o' Ho Ho') as [E1 E2].
  split; [unfold required; rewrite E1, E2; reflexivity |].
  intros n Hn. apply Hv. apply (required_not_extra i o); auto.
Qed.

Lemma rel_executable : forall s sp i, rel s sp -> executable g s i <-> executable gplus sp i.
Proof.
  intros s sp i Hr. pose proof Hr as [Hv Hf]. split.
  - intros [o [Ho [Hn Hd]]]. destruct (gplus_op i o Ho) as [o' Ho'].
    destruct (rel_required s sp i o o' Hr Ho Ho') as [Er Ev].
    exists o'. split; [exact Ho' | split]; [rewrite Hf; exact Hn |].
    rewrite Er. intros n Hin. unfold defined. rewrite Ev by exact Hin. apply Hd. exact Hin.
  - intros [o' [Ho' [Hn Hd]]]. destruct (g_op i o' Ho') as [o Ho].
    destruct (rel_required s sp i o o' Hr Ho Ho') as [Er Ev].
    exists o. split; [exact Ho | split]; [rewrite <- Hf; exact Hn |].
    intros n Hin. unfold defined. rewrite <- Ev by exact Hin. apply Hd. rewrite Er. exact Hin.
Qed.

Lemma couts_extra_gen : forall t, ~ extra t -> forall cs ys,
  Forall2 (fun e y => e = Some (ren y) \/ (e = None /\ ~ g_tensor (ren y))) cs ys ->
  (forall y, In y ys -> In y fout) ->
  Forall2 (fun e e' => e = e' \/ (e = None /\ exists n, e' = Some n /\ n <> t))
    cs (map (fun x => Some (ren x)) ys).
Proof.
  intros t Ht cs ys H. induction H as [| e y cs ys He _ IH]; intros Hin; simpl; constructor.
  - destruct He as [He | [He Hg]]; [left; exact He | right; split; [exact He |]].
    exists (ren y). split; [reflexivity |]. intros E. apply Ht. rewrite <- E. split; [| exact Hg].
    simpl. apply in_map_iff. exists y. split; [reflexivity | apply Hin; left; reflexivity].
  - apply IH. intros y' Hy'. apply Hin. right. exact Hy'.
Qed.

Lemma couts_extra : forall t, ~ extra t ->
  Forall2 (fun e e' => e = e' \/ (e = None /\ exists n, e' = Some n /\ n <> t))
    couts (op_outputs call_op).
Proof. intros t Ht. apply (couts_extra_gen t Ht couts fout H_couts). auto. Qed.

Lemma rel_fire : forall s sp i, rel s sp -> executable g s i ->
  rel (fire nested_interp g s i) (fire nested_interp gplus sp i).
Proof.
  intros s sp i Hr [o [Ho _]]. pose proof Hr as [Hv Hf]. destruct (gplus_op i o Ho) as [o' Ho'].
  destruct (rel_required s sp i o o' Hr Ho Ho') as [_ Ev].
  destruct (same_inputs i o o' Ho Ho') as [E1 E2].
  assert (Hres : results nested_interp sp i o' = results nested_interp s i o).
  { transitivity (results nested_interp sp i o); [unfold results, args, imps; rewrite E1, E2; reflexivity |].
    apply results_agree. exact Ev. }
  unfold rel. rewrite (fire_vals _ _ s i o Ho), (fire_vals _ _ sp i o' Ho').
  rewrite (fire_fired _ _ s i o Ho), (fire_fired _ _ sp i o' Ho'). simpl. rewrite Hres. split.
  - intros t Ht. apply nth_gplus in Ho'. destruct Ho' as [[-> ->] | [_ Ho']].
    + rewrite H_callo in Ho. injection Ho as <-. symmetry. apply write_extra.
      * apply couts_extra. exact Ht.
      * symmetry. apply Hv. exact Ht.
    + rewrite Ho in Ho'. injection Ho' as ->. apply write_pointwise. apply Hv. exact Ht.
  - intros k. rewrite Hf. tauto.
Qed.

Lemma rel_steps : forall n s s1 sp, steps nested_interp g n s s1 -> rel s sp ->
  exists sp1, steps nested_interp gplus n sp sp1 /\ rel s1 sp1.
Proof.
  intros n s s1 sp R. revert sp. induction R as [s | n s t s1 [i [Hi ->]] _ IH]; intros sp Hr.
  - exists sp. split; [constructor | exact Hr].
  - destruct (IH _ (rel_fire s sp i Hr Hi)) as [sp1 [R' Hr']]. exists sp1. split; auto.
    econstructor; [| exact R']. exists i. split; auto. apply (rel_executable s sp i Hr). exact Hi.
Qed.

(** [gplus] satisfies the premises [Inline.inline_matches_nested] asks of
    the caller. *)
Lemma gplus_call : nth_error (g_ops gplus) c = Some call_op.
Proof. apply nth_gplus. auto. Qed.

Lemma call_out_cases_gen : forall t cs ys,
  Forall2 (fun e y => e = Some (ren y) \/ (e = None /\ ~ g_tensor (ren y))) cs ys ->
  In (Some t) (map (fun x => Some (ren x)) ys) -> In (Some t) cs \/ ~ g_tensor t.
Proof.
  intros t cs ys H. induction H as [| e y cs ys He _ IH]; intros Ht; [destruct Ht |].
  destruct Ht as [E | Ht].
  - injection E as <-. destruct He as [-> | [-> Hg]]; [left; left; reflexivity | right; exact Hg].
  - destruct (IH Ht) as [H' | H']; [left; right; exact H' | right; exact H'].
Qed.

(** A name the call of [gplus] writes is one the call writes, or a name
    the caller does not mention. *)
Lemma call_out_cases : forall t, In (Some t) (op_outputs call_op) -> In (Some t) couts \/ ~ g_tensor t.
Proof. intros t. apply call_out_cases_gen. exact H_couts. Qed.

Lemma gplus_tensor : forall t, InlineGraph.g_tensor gplus t -> g_tensor t \/ In (Some t) (op_outputs call_op).
Proof.
  intros t [Hs | [Ho | [i [o [Hio Ht]]]]]; [left; left; exact Hs | left; right; left; exact Ho |].
  apply nth_gplus in Hio. destruct Hio as [[-> ->] | [_ Hio]].
  - destruct Ht as [Ht | Ht]; [| right; exact Ht].
    left. right. right. exists c, call_omit. split; [exact H_callo | left; exact Ht].
  - left. right. right. exists i, o. auto.
Qed.

Lemma gplus_c1 : c1_assign gplus.
Proof.
  destruct H_c1g as [Hs Hsrc]. split.
  - intros i j oi oj t Hi Hj Ht Ht'.
    apply nth_gplus in Hi, Hj.
    destruct Hi as [[-> ->] | [Hne Hi]]; destruct Hj as [[-> ->] | [Hne' Hj]]; auto.
    + exfalso. destruct (call_out_cases t Ht) as [Hc | Hg].
      * apply Hne'. symmetry. apply (Hs c j call_omit oj t); auto.
      * apply Hg. right. right. exists j, oj. auto.
    + exfalso. destruct (call_out_cases t Ht') as [Hc | Hg].
      * apply Hne. apply (Hs i c oi call_omit t); auto.
      * apply Hg. right. right. exists i, oi. auto.
    + apply (Hs i j oi oj t); auto.
  - intros i o t Hi Ht Hsr. change (source g t) in Hsr. apply nth_gplus in Hi.
    destruct Hi as [[-> ->] | [_ Hi]].
    + destruct (call_out_cases t Ht) as [Hc | Hg]; [apply (Hsrc c call_omit t); auto |].
      apply Hg. left. exact Hsr.
    + apply (Hsrc i o t); auto.
Qed.


Lemma gplus_fresh : forall u, internal fb u -> ~ InlineGraph.g_tensor gplus (ren u).
Proof.
  intros u [Hi Ho] Ht. destruct (gplus_tensor (ren u) Ht) as [Hg | Hc].
  - apply (H_fresh u); [split |]; auto.
  - simpl in Hc. apply in_map_iff in Hc. destruct Hc as [y [E Hy]]. injection E as E.
    assert (y = u) as -> by (apply H_inj; [exact Hi | exact E]). contradiction.
Qed.

Lemma omitted_main : forall (inp init outer : nat -> option V) s1 s2,
  maximal_run nested_interp g (initial_state g inp init outer) s1 -> In c (fired s1) ->
  maximal_run (inline_interp it ib c fb) (inline_graph g c fb ren)
    (initial_state (inline_graph g c fb ren) inp init outer) s2 ->
  (forall t, g_tensor t -> vals s2 t = vals s1 t) /\ outputs_of (inline_graph g c fb ren) s2 = outputs_of g s1.
Proof.
  intros inp init outer s1 s2 [[n R] M] Hc R2.
  assert (Hr0 : rel (initial_state g inp init outer) (initial_state gplus inp init outer))
    by (split; [intros; reflexivity | tauto]).
  destruct (rel_steps n _ s1 _ R Hr0) as [sp1 [Rp [Hv1 Hf1]]].
  assert (Mp : maximal gplus sp1).
  { intros i Hi. apply (M i). apply (rel_executable s1 sp1 i (conj Hv1 Hf1)). exact Hi. }
  rewrite <- inline_gplus in R2.
  destruct (inline_matches_nested it ib undef gplus c fb ren inp init outer sp1 s2 gplus_at
              H_noinit H_nocap H_io H_inj gplus_fresh gplus_c1 H_c1b H_arb H_c3b
              (conj (ex_intro _ n Rp) Mp) (proj2 (Hf1 c) Hc) R2) as [Hv Hout].
  assert (Hg : forall t, g_tensor t -> vals s2 t = vals s1 t).
  { intros t Ht. rewrite Hv.
    - apply Hv1. intros [_ Hn]. apply Hn. exact Ht.
    - intros u Hu E. apply (H_fresh u Hu). rewrite E. exact Ht. }
  split; [exact Hg |].
  unfold outputs_of. simpl. apply map_ext_in. intros t Ht. apply Hg. right. left. exact Ht.
Qed.

End Proofs.

(** Running a call that may omit outputs as a nested graph gives the
    result of inlining it. The premises are those of
    [Inline.inline_matches_nested], with the call's output mapping [couts]
    in place of [call_op]'s: entry [k] is [ren (fout k)], or omitted, and
    then [ren (fout k)] is a name the caller does not mention (the fresh
    name inlining gives an omitted output). Conclusion: every maximal run
    of the caller under the nested reading in which the call fires and
    every maximal run of the inlined graph give the same value to every
    tensor the caller mentions, so the graph outputs are equal. *)
Theorem inline_matches_nested_omitted : forall (inp init outer : nat -> option V) s1 s2,
  nth_error (g_ops g) c = Some call_omit ->
  Forall2 (fun e y => e = Some (ren y) \/ (e = None /\ ~ g_tensor (ren y))) couts fout ->
  g_inits fb = [] -> g_captures fb = [] ->
  (forall u, In u fin -> ~ In u fout) ->
  (forall u x, ~ In x fin -> ren u = ren x -> u = x) ->
  (forall u, internal fb u -> ~ g_tensor (ren u)) ->
  c1_assign g -> c1_assign fb ->
  arity_ok ib fb ->
  (forall inp, (forall x, In x fin -> inp x <> None) -> c3_fixpoint fb (initial_state fb inp nothing nothing)) ->
  maximal_run nested_interp g (initial_state g inp init outer) s1 -> In c (fired s1) ->
  maximal_run (inline_interp it ib c fb) (inline_graph g c fb ren)
    (initial_state (inline_graph g c fb ren) inp init outer) s2 ->
  (forall t, g_tensor t -> vals s2 t = vals s1 t) /\ outputs_of (inline_graph g c fb ren) s2 = outputs_of g s1.
Proof.
  intros inp init outer s1 s2 H1 H2 H3 H4 H5 H6 H7 H8 H9 H10 H11 R1 Hc R2.
  eapply omitted_main; eassumption.
Qed.

End Omitted.

Print Assumptions inline_matches_nested_omitted.
