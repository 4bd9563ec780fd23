(** * A concrete call that omits an input, for the theorem of
    [InlineOmittedInput.v] (spec/graph.rst, section 3.6, GRAPH-FUNCTIONS).

    - [inline_omitted_input_premises_satisfiable]: a call that omits an
      optional input, on which every premise of
      [InlineOmittedInput.inline_matches_nested_omitted_input] holds (each
      is discharged in the proof) and the call fires, so the theorem is not
      vacuous;
    - [unstripped_call_differs]: on the same call, the reading that runs
      the body as it is, with the omitted formal input merely unbound
      ([InlineGraph.nested_interp]), gives another output than inlining:
      the body operation that reads the omitted input waits for it forever.
      So an omitted input must be read as ONNX and the loader read it, an
      omitted entry of every operation that reads it, which is the reading
      [InlineOmittedInput.nested_in] adopts and the spec's inlining
      gives. *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence C3 InlineGraph Inline InlineOmitted.
From SONNX Require Import InlineExamples InlineOmittedInput.
Import ListNotations.

(** A caller with two operations, [1 := f(0, _)] (the call, at position 0,
    omitting its second input) and [2 := double(1)], and a body [f(0, 7)]
    with two operations, [5 := add(0, 7)] and [1 := inc1(5)]; [add] adds
    its two arguments, or adds [1] to the first when the second is omitted.
    The renaming of [InlineExamples] keeps [0] and [1] and sends every
    other name [u] to [u + 10]. *)
Definition ex4_g : graph :=
  mkGraph [0] [] [] [mkOp [Some 0; None] [] [Some 1]; mkOp [Some 1] [] [Some 2]] [2].
Definition ex4_fb : graph :=
  mkGraph [0; 7] [] [] [mkOp [Some 0; Some 7] [] [Some 5]; mkOp [Some 5] [] [Some 1]] [1].
Definition ex4_om (x : nat) : bool := x =? 7.
Definition ex4_ib (j : nat) (a b : list (option nat)) : list nat :=
  [match a with Some x :: Some y :: _ => x + y | Some x :: _ => x + 1 + j | _ => 0 end].

Lemma ex4_g_tensor : forall t, g_tensor ex4_g t -> t <= 2.
Proof.
  intros t [[H | [H | H]] | [H | [i [o [Ho H]]]]]; simpl in *; try tauto; try lia.
  apply ex_nth2 in Ho. destruct Ho as [[-> ->] | [-> ->]]; unfold required in H; simpl in H;
    repeat match goal with Hx : _ \/ _ |- _ => destruct Hx end; try discriminate; try contradiction;
    repeat match goal with Hx : Some _ = Some _ |- _ => injection Hx as <- end; lia.
Qed.

Lemma ex4_c1g : c1_assign ex4_g.
Proof.
  apply ex_c1.
  - intros i j oi oj t Hi Hj Ht Ht'. simpl in Hi, Hj.
    apply ex_nth2 in Hi, Hj. destruct Hi as [[-> ->] | [-> ->]]; destruct Hj as [[-> ->] | [-> ->]];
      simpl in Ht, Ht'; auto; destruct Ht as [Ht | []]; destruct Ht' as [Ht' | []]; congruence.
  - intros i o t Hi Ht Hs. simpl in Hi. apply ex_nth2 in Hi.
    destruct Hi as [[-> ->] | [-> ->]]; simpl in Ht; destruct Ht as [Ht | []]; injection Ht as <-;
      unfold source in Hs; simpl in Hs; intuition discriminate.
Qed.

Lemma ex4_c1b : c1_assign ex4_fb.
Proof.
  apply ex_c1.
  - intros i j oi oj t Hi Hj Ht Ht'. simpl in Hi, Hj.
    apply ex_nth2 in Hi, Hj. destruct Hi as [[-> ->] | [-> ->]]; destruct Hj as [[-> ->] | [-> ->]];
      simpl in Ht, Ht'; auto; destruct Ht as [Ht | []]; destruct Ht' as [Ht' | []]; congruence.
  - intros i o t Hi Ht Hs. simpl in Hi. apply ex_nth2 in Hi.
    destruct Hi as [[-> ->] | [-> ->]]; simpl in Ht; destruct Ht as [Ht | []]; injection Ht as <-;
      unfold source in Hs; simpl in Hs; intuition discriminate.
Qed.

Local Notation ex4_inl := (inline_graph_in ex4_g 0 ex4_fb ex_ren ex4_om).

(** Non-vacuity of [inline_matches_nested_omitted_input]: on the call above
    every premise holds and the call fires, so the theorem gives the
    inlined graph's outputs, whatever maximal run computes them:
    [2 * ((3 + 1 + 0) + 1 + 1) = 12], the body's [add] having received no
    value for its omitted second argument. *)
Theorem inline_omitted_input_premises_satisfiable : forall s2,
  maximal_run (inline_interp ex_it ex4_ib 0 ex4_fb) ex4_inl (initial_state ex4_inl ex_inp nothing nothing) s2 ->
  outputs_of ex4_inl s2 = [Some 12].
Proof.
  intros s2 R2.
  set (s1 := run_fuel (nested_in ex_it ex4_ib 0 0 ex4_fb ex4_om) ex4_g 2 (initial_state ex4_g ex_inp nothing nothing)).
  assert (Hs1 : outputs_of ex4_g s1 = [Some 12] /\ In 0 (fired s1)) by (vm_compute; auto).
  destruct Hs1 as [Hout Hc]. rewrite <- Hout.
  refine (proj2 (inline_matches_nested_omitted_input ex_it ex4_ib 0 ex4_g 0 ex4_fb ex_ren [Some 1] ex4_om
                   ex_inp nothing nothing s1 s2 _ _ _ _ _ _ _ _ _ _ _ _ Hc R2)).
  - reflexivity.
  - constructor; [left; reflexivity | constructor].
  - reflexivity.
  - reflexivity.
  - simpl. intros u [<- | [<- | []]] [H | []]; discriminate.
  - intros u x _. unfold ex_ren.
    destruct (Nat.eqb_spec u 0); destruct (Nat.eqb_spec u 1);
      destruct (Nat.eqb_spec x 0); destruct (Nat.eqb_spec x 1); intros; try lia; tauto.
  - intros u Hk Ho Ht. apply ex4_g_tensor in Ht. vm_compute in Hk, Ho. unfold ex_ren in Ht.
    destruct (Nat.eqb_spec u 0); destruct (Nat.eqb_spec u 1); try tauto; lia.
  - exact ex4_c1g.
  - exact ex4_c1b.
  - intros i o a b Hi. simpl in Hi. apply ex_nth2 in Hi. destruct Hi as [[-> ->] | [-> ->]]; reflexivity.
  - intros inp Hinp t [<- | []].
    assert (H0 : derivable (strip_body ex4_fb ex4_om) (initial_state (strip_body ex4_fb ex4_om) inp nothing nothing) 0).
    { apply der_init. unfold defined. vm_compute.
      destruct (inp 0) eqn:E; [discriminate | exfalso; exact (Hinp 0 (or_introl eq_refl) E)]. }
    assert (H5 : derivable (strip_body ex4_fb ex4_om) (initial_state (strip_body ex4_fb ex4_om) inp nothing nothing) 5).
    { apply (der_op _ _ 0 (mkOp [Some 0; None] [] [Some 5])); [reflexivity | | left; reflexivity].
      intros n [<- | []]. exact H0. }
    apply (der_op _ _ 1 (mkOp [Some 5] [] [Some 1])); [reflexivity | | left; reflexivity].
    intros n [<- | []]. exact H5.
  - split; [apply run_fuel_steps | apply run_fuel_maximal; rewrite unfired_initial; auto].
Qed.

(** The stripping cannot be dropped from the nested reading: if the call
    runs the body as it is, its formal input [7] merely unbound, the call
    still fires in every maximal run of the caller, but the body's [add]
    never does (it waits for [7]), the body's output stays undefined and
    the call returns the placeholder [undef = 0]; the graph output is [0],
    where inlining, and the nested reading of
    [InlineOmittedInput.nested_in], give [12]. *)
Theorem unstripped_call_differs : forall s1 s2,
  maximal_run (nested_interp ex_it ex4_ib 0 0 ex4_fb) ex4_g (initial_state ex4_g ex_inp nothing nothing) s1 ->
  maximal_run (inline_interp ex_it ex4_ib 0 ex4_fb) ex4_inl (initial_state ex4_inl ex_inp nothing nothing) s2 ->
  In 0 (fired s1) /\ outputs_of ex4_g s1 = [Some 0] /\ outputs_of ex4_inl s2 = [Some 12].
Proof.
  intros s1 s2 R1 R2.
  destruct (runner_correct _ ex4_g ex_inp nothing nothing s1 ex4_c1g R1) as [E1 F1].
  split; [| split].
  - rewrite <- F1. vm_compute. tauto.
  - unfold outputs_of. simpl. rewrite <- E1. vm_compute. reflexivity.
  - apply inline_omitted_input_premises_satisfiable. exact R2.
Qed.

Print Assumptions inline_omitted_input_premises_satisfiable.
Print Assumptions unstripped_call_differs.
