(** * A function call run as a nested graph gives the result of its inlining
    (spec/graph.rst, section 3.6, GRAPH-FUNCTIONS).

    The spec defines a call of a model-local function by inlining: the body
    is written in place of the call, its formal inputs and outputs replaced
    by the call's actual tensors and its other tensors given fresh names.
    The other reading runs the body as a nested graph: the call is one
    operation whose interpretation runs the body (with the [FileOrder]
    runner [run_fuel]) on the call's input values and returns the body's
    output values. Theorems:
    - [inline_matches_nested]: the two readings agree. Every maximal run
      of the caller under the nested reading in which the call fires, and
      every maximal run of the inlined graph, end with the same value on
      every tensor that is not a fresh name, the graph outputs among them;
    - [inline_c1_assign]: the inlined graph satisfies GRAPH-C1
      and GRAPH-C1-SOURCES when the caller and the body do (so order
      independence applies to it);
    - [InlineExamples.inline_premises_satisfiable]: a concrete call on
      which every premise holds, so the main theorem is not vacuous;
    - [InlineExamples.strict_call_needed]: the premise that the call fires
      cannot be dropped. The nested reading is strict (the call waits for all of its
      inputs) while the inlined body's operations may fire on some of
      them, so a call that never fires can leave undefined an output that
      the inlined graph defines.

    The renaming [ren] is a parameter constrained by stated premises
    (interface names map to the call's tensors, other names to fresh ones,
    injective on every name the body may write); the inlined graph
    [inline_graph] and its interpretation [inline_interp] are definitions
    ([InlineGraph.v]); the simulation lemmas are in [InlineSim.v], the two
    concrete instances in [InlineExamples.v].
    The proof builds, from any run of the caller, a run of the inlined
    graph that fires the caller's other operations one for one and the
    body's run as a block of steps in place of the call ([sim], [bsim],
    [inv]); the result for every maximal run of the inlined graph then
    follows from [order_independence].

    Scope: the call has no omitted input or output entry (calls that omit
    outputs: [InlineOmitted.v]; calls that omit inputs, and outputs too:
    [InlineOmittedInput.v]), and the body is flat: its
    operations are interpreted by arbitrary operators [ib], so a call
    nested in the body is covered by applying the theorem to it first. *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence C3 InlineGraph InlineSim.
Import ListNotations.

Section Inline.

Context {V : Type}.

(** The parameters of [InlineGraph.v]'s section, explained there: a
    section is local to its file, so they are declared again. *)
Variable it : nat -> list (option V) -> list (option V) -> list V.
Variable ib : nat -> list (option V) -> list (option V) -> list V.
Variable undef : V.
Variable g : graph.
Variable c : nat.
Variable fb : graph.
Variable ren : nat -> nat.

Local Notation fin := (g_inputs fb).
Local Notation fout := (g_outputs fb).
Local Notation m := (length (g_ops fb)).

Local Notation nested_interp := (InlineGraph.nested_interp it ib undef c fb).
Local Notation inline_interp := (InlineGraph.inline_interp it ib c fb).
Local Notation inline_graph := (InlineGraph.inline_graph g c fb ren).
Local Notation call_op := (InlineGraph.call_op fb ren).
Local Notation internal := (InlineGraph.internal fb).
Local Notation nonfresh := (InlineGraph.nonfresh fb ren).
Local Notation g_tensor := (InlineGraph.g_tensor g).
Local Notation pos := (InlineGraph.pos c fb).
Local Notation nothing := (@InlineGraph.nothing V).

(** ** Premises *)

(** The proof assumes the premises of [inline_matches_nested] below, which
    states and explains them. *)
Section Proofs.

Hypothesis H_call : nth_error (g_ops g) c = Some call_op.
Hypothesis H_noinit : g_inits fb = [].
Hypothesis H_nocap : g_captures fb = [].
Hypothesis H_io : forall u, In u fin -> ~ In u fout.
Hypothesis H_inj : forall u x, ~ In x fin -> ren u = ren x -> u = x.
Hypothesis H_fresh : forall u, internal u -> ~ g_tensor (ren u).
Hypothesis H_c1g : c1_assign g.
Hypothesis H_c1b : c1_assign fb.
Hypothesis H_arb : arity_ok ib fb.
Hypothesis H_c3b : forall inp, (forall x, In x fin -> inp x <> None) ->
  c3_fixpoint fb (initial_state fb inp nothing nothing).

(** Lemmas of [InlineGraph.v] with this section's premises applied (the
    others are used by their global names, their premises found by
    unification). *)
Local Notation nth_inline_inv := (InlineGraph.nth_inline_inv g c fb ren H_call).
Local Notation g_tensor_nonfresh := (InlineGraph.g_tensor_nonfresh g fb ren H_fresh).
Local Notation required_g_tensor := (InlineGraph.required_g_tensor g).
Local Notation output_g_tensor := (InlineGraph.output_g_tensor g).
Local Notation body_out_not_in := (InlineGraph.body_out_not_in fb H_c1b).
Local Notation in_ren_outs := (InlineGraph.in_ren_outs ren).

Local Notation sim := (@InlineSim.sim V c fb ren).
Local Notation sim_caller_step := (InlineSim.sim_caller_step it ib undef g c fb ren H_call H_fresh).
Local Notation call_block :=
  (InlineSim.call_block it ib undef g c fb ren H_call H_noinit H_nocap H_io H_inj H_fresh H_c1g H_c1b H_arb H_c3b).

(** ** The whole run *)

(** The invariant between a caller state (nested reading) and an inlined
    state: before the call fires, [sim] with no body value; after, [sim]
    with the values of a maximal body run that defined every body input
    and output. *)
Definition inv (s s' : @state V) : Prop :=
  (~ In c (fired s) /\ sim s s' nothing []) \/
  (In c (fired s) /\ exists sb, maximal fb sb /\ (forall u, In u fin \/ In u fout -> defined sb u) /\
                                sim s s' (vals sb) (fired sb)).

Lemma sim_run : forall n s s1, steps nested_interp g n s s1 -> origin_inv g s ->
  forall s', inv s s' -> exists n' s1', steps inline_interp inline_graph n' s' s1' /\ inv s1 s1'.
Proof.
  intros n s s1 R. induction R as [s | n s t s1 [i [Hi ->]] R IH]; intros Hinv s' Hs.
  - exists 0, s'. split; [constructor | exact Hs].
  - assert (Hinv' : origin_inv g (fire nested_interp g s i))
      by (apply (origin_inv_step nested_interp g s); [exists i; auto | exact Hinv]).
    pose proof Hi as [o [Ho [Hn _]]].
    assert (Hfi : fired (fire nested_interp g s i) = i :: fired s) by (apply fire_fired with (o := o); exact Ho).
    destruct (Nat.eq_dec i c) as [-> | Hne].
    + destruct Hs as [[Hnc Hsim] | [Hc _]]; [| contradiction].
      destruct (call_block s s' Hnc Hinv Hsim Hi) as [n1 [s3 [R1 [sb [Mb [Hd Hsim']]]]]].
      destruct (IH Hinv' s3) as [n2 [s4 [R2 Hs4]]].
      { right. split; [rewrite Hfi; left; reflexivity |]. exists sb. auto. }
      exists (n1 + n2), s4. split; [apply (steps_trans inline_interp inline_graph n1 n2 s' s3 s4); auto | exact Hs4].
    + assert (Hcf : In c (fired (fire nested_interp g s i)) <-> In c (fired s)).
      { rewrite Hfi. simpl. split; [intros [E | H]; [congruence | exact H] | intros H; right; exact H]. }
      destruct Hs as [[Hnc Hsim] | [Hc [sb [Mb [Hd Hsim]]]]].
      * destruct (sim_caller_step s s' nothing [] i Hsim Hne Hi) as [He Hsim'].
        destruct (IH Hinv' (fire inline_interp inline_graph s' (pos i))) as [n2 [s4 [R2 Hs4]]].
        { left. split; [rewrite Hcf; exact Hnc | exact Hsim']. }
        exists (S n2), s4. split; [econstructor; [exists (pos i); split; eauto | exact R2] | exact Hs4].
      * destruct (sim_caller_step s s' (vals sb) (fired sb) i Hsim Hne Hi) as [He Hsim'].
        destruct (IH Hinv' (fire inline_interp inline_graph s' (pos i))) as [n2 [s4 [R2 Hs4]]].
        { right. split; [rewrite Hcf; exact Hc | exists sb; auto]. }
        exists (S n2), s4. split; [econstructor; [exists (pos i); split; eauto | exact R2] | exact Hs4].
Qed.

Lemma inv_maximal : forall s s', In c (fired s) -> inv s s' -> maximal g s -> maximal inline_graph s'.
Proof.
  intros s s' Hc [[Hnc _] | [_ [sb [Mb [Hd [Hv [Hb [Hbf Hf]]]]]]]] Hm; [contradiction |].
  intros k [o [Ho [Hn Hr]]].
  destruct (nth_inline_inv k o Ho) as [[i [Hne [-> Hoi]]] | [j [ob [-> [Hj [Hob ->]]]]]].
  - apply (Hm i). exists o. repeat split; auto.
    + intros Hin. apply Hn. apply Hf. left. exists i. auto.
    + intros n Hin. unfold defined. rewrite <- Hv; [apply Hr; exact Hin |].
      apply g_tensor_nonfresh. apply (required_g_tensor i o); auto.
  - apply (Mb j). exists ob. repeat split; auto.
    + intros Hin. apply Hn. apply Hf. right. exists j. auto.
    + intros u Hu. destruct (In_dec Nat.eq_dec u fin) as [Hi | Hi]; [apply Hd; left; exact Hi |].
      destruct (In_dec Nat.eq_dec u fout) as [Ho2 | Ho2]; [apply Hd; right; exact Ho2 |].
      unfold defined. rewrite <- Hb by (split; auto). apply Hr. rewrite required_ren. apply in_map. exact Hu.
Qed.

(** ** GRAPH-C1 for the inlined graph *)

Lemma body_write_caller_free : forall i o j ob u, i <> c ->
  nth_error (g_ops g) i = Some o -> nth_error (g_ops fb) j = Some ob -> In (Some u) (op_outputs ob) ->
  ~ In (Some (ren u)) (op_outputs o).
Proof.
  intros i o j ob u Hne Ho Hob Hu Hin.
  assert (Hfin := body_out_not_in j ob u Hob Hu).
  destruct (In_dec Nat.eq_dec u fout) as [Hout | Hout].
  - apply Hne. destruct H_c1g as [Hs _]. apply (Hs i c o call_op (ren u)); auto. apply call_outputs_in. exact Hout.
  - apply (H_fresh u); [split; auto |]. apply (output_g_tensor i o); auto.
Qed.

Lemma body_write_not_source : forall j ob u,
  nth_error (g_ops fb) j = Some ob -> In (Some u) (op_outputs ob) -> ~ source g (ren u).
Proof.
  intros j ob u Hob Hu Hsrc.
  assert (Hfin := body_out_not_in j ob u Hob Hu).
  destruct (In_dec Nat.eq_dec u fout) as [Hout | Hout].
  - destruct H_c1g as [_ Hs]. apply (Hs c call_op (ren u) H_call); auto. apply call_outputs_in. exact Hout.
  - apply (H_fresh u); [split; auto |]. left. exact Hsrc.
Qed.

Lemma inline_c1 : c1_assign inline_graph.
Proof.
  split.
  - intros k k' ok ok' t Hk Hk' Ht Ht'.
    destruct (nth_inline_inv k ok Hk) as [[i [Hne [-> Hoi]]] | [j [ob [-> [Hj [Hob ->]]]]]];
    destruct (nth_inline_inv k' ok' Hk') as [[i' [Hne' [-> Hoi']]] | [j' [ob' [-> [Hj' [Hob' ->]]]]]].
    + f_equal. destruct H_c1g as [Hs _]. apply (Hs i i' ok ok' t); auto.
    + exfalso. destruct (in_ren_outs _ t Ht') as [u [Hu ->]].
      apply (body_write_caller_free i ok j' ob' u); auto.
    + exfalso. destruct (in_ren_outs _ t Ht) as [u [Hu ->]].
      apply (body_write_caller_free i' ok' j ob u); auto.
    + destruct (in_ren_outs _ t Ht) as [u [Hu ->]]. destruct (in_ren_outs _ _ Ht') as [u' [Hu' E]].
      assert (u = u') as <- by (apply H_inj; [apply (body_out_not_in j' ob' u'); auto | exact E]).
      f_equal. destruct H_c1b as [Hs _]. apply (Hs j j' ob ob' u); auto.
  - intros k o t Hk Ht Hsrc. change (source g t) in Hsrc.
    destruct (nth_inline_inv k o Hk) as [[i [Hne [-> Hoi]]] | [j [ob [-> [Hj [Hob ->]]]]]].
    + destruct H_c1g as [_ Hs]. apply (Hs i o t); auto.
    + destruct (in_ren_outs _ t Ht) as [u [Hu ->]]. apply (body_write_not_source j ob u); auto.
Qed.

(** ** The two readings agree *)

Lemma inline_sim_main : forall (inp init outer : nat -> option V) s1 s2,
  maximal_run nested_interp g (initial_state g inp init outer) s1 -> In c (fired s1) ->
  maximal_run inline_interp inline_graph (initial_state inline_graph inp init outer) s2 ->
  (forall t, nonfresh t -> vals s2 t = vals s1 t) /\ outputs_of inline_graph s2 = outputs_of g s1.
Proof.
  intros inp init outer s1 s2 [[n R] M] Hc R2.
  assert (H0 : inv (initial_state g inp init outer) (initial_state inline_graph inp init outer)).
  { left. split; [intros [] |]. split; [| split; [| split]].
    - intros t _. reflexivity.
    - intros u Hu. unfold nothing. simpl.
      destruct (initial_vals inline_graph inp init outer (ren u)) eqn:E; [exfalso | reflexivity].
      apply (H_fresh u Hu). left. change (source inline_graph (ren u)).
      apply (initial_vals_source inline_graph inp init outer). rewrite E. discriminate.
    - intros j [].
    - intros k. simpl. split; [intros [] | intros [[i [[] _]] | [j [[] _]]]]. }
  destruct (sim_run n _ s1 R (origin_inv_initial g inp init outer) _ H0) as [n' [s1' [R' Hs1']]].
  assert (M' := inv_maximal s1 s1' Hc Hs1' M).
  destruct (order_independence inline_interp inline_graph inp init outer s1' s2 inline_c1
              (conj (ex_intro _ n' R') M') R2) as [Ev _].
  assert (Hv : forall t, nonfresh t -> vals s2 t = vals s1 t).
  { intros t Ht. rewrite <- Ev.
    destruct Hs1' as [[Hnc _] | [_ [sb [_ [_ [Hv _]]]]]]; [contradiction | apply Hv; exact Ht]. }
  split; [exact Hv |].
  unfold outputs_of. simpl. apply map_ext_in. intros t Ht. apply Hv.
  apply g_tensor_nonfresh. right. left. exact Ht.
Qed.

End Proofs.

(** ** The theorems *)

(** GRAPH-C1 and GRAPH-C1-SOURCES holds for the inlined graph when
    it holds for the caller and for the body, under the renaming premises
    of [inline_matches_nested] (no body input or initial value is needed:
    the proof only uses the call's shape, injectivity and freshness). *)
Theorem inline_c1_assign :
  nth_error (g_ops g) c = Some call_op ->
  (forall u x, ~ In x fin -> ren u = ren x -> u = x) ->
  (forall u, internal u -> ~ g_tensor (ren u)) ->
  c1_assign g -> c1_assign fb ->
  c1_assign inline_graph.
Proof. intros H1 H2 H3 H4 H5. apply inline_c1; assumption. Qed.

(** Running a call as a nested graph gives the result of inlining it.

    The caller [g] holds at position [c] a call of the function whose body
    is the flat graph [fb] (inputs [fin], outputs [fout]). Nested reading:
    [nested_interp] interprets the call by running the body with
    [run_fuel] from its inputs bound to the call's argument values, and
    returns the body's output values ([runner_correct]: under GRAPH-C1 for
    the body, [run_fuel] ends where every maximal run of the body ends);
    the caller's other operations are interpreted by [it], the body's by
    [ib]. Inlined reading:
    [inline_graph], the caller with the body's operations renamed by [ren]
    in place of the call, interpreted by [inline_interp].

    Premises, each a fact the loader or a checked rule gives:
    - the call names its actual tensors through [ren]: actual input [k] is
      [ren (fin k)], actual output [k] is [ren (fout k)], with no omitted
      entry and no implicit input (a function has no captures);
    - the body has no initializers and no captures (ONNX functions have
      neither) and no output is also an input;
    - two distinct body names get the same name from [ren] only when both
      are inputs (a call may pass one tensor to two inputs); so [ren] is
      injective on every name the body may write (no body operation writes
      an input, by GRAPH-C1 for the body);
    - [ren] gives every internal body name (neither input nor output) a
      fresh name: not a tensor the caller mentions ([g_tensor]);
    - GRAPH-C1 and GRAPH-C1-SOURCES for the caller and for the
      body ([c1_assign]);
    - the body's operators give one value per output ([arity_ok]) and the
      body satisfies GRAPH-C3 (static form, [c3_fixpoint]) whenever its
      inputs have values, so a run of the body defines every output;
    - the call fires in the caller's run ([In c (fired s1)]). This is a
      fact of the run, not of the rules: the nested call waits for all of
      its inputs while inlined operations may fire on some of them, and
      [strict_call_needed] shows the conclusion fails without it.

    Conclusion: for every maximal run [s1] of the caller under the nested
    reading and every maximal run [s2] of the inlined graph, both from the
    same graph inputs, initializers and captured values, [s2] and [s1]
    give the same value to every name that is not a fresh name
    ([nonfresh]), so the graph outputs are equal. *)
Theorem inline_matches_nested : forall (inp init outer : nat -> option V) s1 s2,
  nth_error (g_ops g) c = Some call_op ->
  g_inits fb = [] -> g_captures fb = [] ->
  (forall u, In u fin -> ~ In u fout) ->
  (forall u x, ~ In x fin -> ren u = ren x -> u = x) ->
  (forall u, internal u -> ~ g_tensor (ren u)) ->
  c1_assign g -> c1_assign fb ->
  arity_ok ib fb ->
  (forall inp, (forall x, In x fin -> inp x <> None) -> c3_fixpoint fb (initial_state fb inp nothing nothing)) ->
  maximal_run nested_interp g (initial_state g inp init outer) s1 -> In c (fired s1) ->
  maximal_run inline_interp inline_graph (initial_state inline_graph inp init outer) s2 ->
  (forall t, nonfresh t -> vals s2 t = vals s1 t) /\ outputs_of inline_graph s2 = outputs_of g s1.
Proof.
  intros inp init outer s1 s2 H1 H2 H3 H4 H5 H6 H7 H8 H9 H10 R1 Hc R2.
  eapply inline_sim_main; eassumption.
Qed.

End Inline.

Print Assumptions inline_c1_assign.
Print Assumptions inline_matches_nested.
