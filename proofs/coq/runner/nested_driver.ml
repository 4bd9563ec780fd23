(* The nested blocks of the driver (main.ml): graphs whose operations hold graphs, run by run_ng of
   proofs/coq/Nested.v as ExtractNested.v instantiates it (spec/graph.rst sections 1.4 and 3.6).

   main.ml hands over after a line "nested"; the block ends with "run". Lines:
     body ID ... end     a body graph numbered ID, given before the operations that hold it;
                         the lines in between describe it
     inputs ID...    inits ID...    captures ID...    outputs ID...   (of the graph being read)
     op CODE PARAM NOUTS | IN... | IMPLICIT... | OUT...   a table operation (as in flat blocks)
     if THEN ELSE | IN... | IMPLICIT... | OUT...          an If holding the bodies THEN and ELSE
     loop BODY | IN... | IMPLICIT... | OUT...             a Loop holding the body BODY
     inp ID V...    init ID V...    outer ID V...    tensors N   (the main graph's values)
   Bodies have no initializer values. The output is that of a flat block that does not fail
   (step, fired, vals, outs, done) for the main graph: the steps and values are those of the
   file-order run inside run_ng (nested_final), the outputs are run_ng's own (nested_outputs).
   Malformed input stops the driver with a message on stderr and exit code 2. *)

open Sonnx_nested

let fail msg = prerr_endline ("runner: " ^ msg); exit 2

let num s =
  match int_of_string_opt s with
  | Some n when n >= 0 && n < 1 lsl 40 -> n
  | _ -> fail ("not a small non-negative number: " ^ s)

let entry s = if s = "-" then None else Some (num s)

let words line = List.filter (fun w -> w <> "") (String.split_on_char ' ' line)

let rec pairs = function
  | [] -> []
  | k :: v :: rest -> (num k, num v) :: pairs rest
  | _ -> fail "a value list needs id/value pairs"

let lookup l t = List.assoc_opt t l

type builder = {
  id : int; mutable inputs : int list; mutable inits : int list; mutable captures : int list;
  mutable outputs : int list; mutable ops : (int kind * operation) list }

let fresh id = { id; inputs = []; inits = []; captures = []; outputs = []; ops = [] }

let to_ngraph b init =
  let ops = List.rev b.ops in
  let kinds = Array.of_list (List.map fst ops) in
  let g = { g_inputs = b.inputs; g_inits = b.inits; g_captures = b.captures;
            g_ops = List.map snd ops; g_outputs = b.outputs } in
  (* operations are looked up by position; none lies beyond the list, Prim 0 only fills the type *)
  NG (g, init, fun i -> if i < Array.length kinds then kinds.(i) else Prim 0)

let show_vals n vals =
  let b = Buffer.create 64 in
  for t = 0 to n - 1 do
    match vals t with
    | Some v -> Buffer.add_string b (Printf.sprintf " %d=%d" t v)
    | None -> ()
  done;
  Buffer.contents b

let run_block () =
  let codes = ref [] and ncodes = ref 0 in
  let bodies = Hashtbl.create 8 in
  let body id = match Hashtbl.find_opt bodies id with
    | Some ng -> ng | None -> fail (Printf.sprintf "body %d is used before it is given" id) in
  let stack = ref [ fresh (-1) ] in
  let inp = ref [] and init = ref [] and outer = ref [] and tensors = ref 0 in
  let top () = List.hd !stack in
  let add_op line kind_of =
    match List.map words (String.split_on_char '|' line) with
    | [ _ :: head; ins; imps; outs ] ->
      let o = { op_inputs = List.map entry ins; op_implicit = List.map num imps;
                op_outputs = List.map entry outs } in
      (top ()).ops <- (kind_of head, o) :: (top ()).ops
    | _ -> fail ("malformed operation line: " ^ line) in
  let prim = function
    | [ c; p; n ] ->
      codes := { code = num c; param = num p; nouts = num n } :: !codes;
      incr ncodes; Prim (!ncodes - 1)
    | _ -> fail "an op line needs CODE PARAM NOUTS" in
  let rec read () =
    let line = try input_line stdin with End_of_file -> fail "a nested block has no run line" in
    match words line with
    | [] -> read ()
    | [ "run" ] -> ()
    | [ "body"; id ] -> stack := fresh (num id) :: !stack; read ()
    | [ "end" ] ->
      (match !stack with
       | b :: (_ :: _ as rest) -> Hashtbl.replace bodies b.id (to_ngraph b (fun _ -> None)); stack := rest
       | _ -> fail "end outside a body");
      read ()
    | "inputs" :: ids -> (top ()).inputs <- List.map num ids; read ()
    | "inits" :: ids -> (top ()).inits <- List.map num ids; read ()
    | "captures" :: ids -> (top ()).captures <- List.map num ids; read ()
    | "outputs" :: ids -> (top ()).outputs <- List.map num ids; read ()
    | "op" :: _ -> add_op line prim; read ()
    | "if" :: _ ->
      add_op line (function [ t; e ] -> IfK (body (num t), body (num e)) | _ -> fail "if needs THEN ELSE");
      read ()
    | "loop" :: _ -> add_op line (function [ l ] -> LoopK (body (num l)) | _ -> fail "loop needs BODY"); read ()
    | "inp" :: vs -> inp := pairs vs; read ()
    | "init" :: vs -> init := pairs vs; read ()
    | "outer" :: vs -> outer := pairs vs; read ()
    | [ "tensors"; n ] -> tensors := num n; read ()
    | w :: _ -> fail ("unknown line in a nested block: " ^ w) in
  read ();
  let main = match !stack with [ b ] -> b | _ -> fail "a body has no end line" in
  let ng = to_ngraph main (lookup !init) in
  let all = List.rev !codes in
  let args = List.map (lookup !inp) main.inputs and out_vals = lookup !outer in
  let g = match ng with NG (g, _, _) -> g in
  let final = nested_final all ng args out_vals in
  let order = List.rev final.fired in
  let s = ref (nested_start ng args out_vals) in
  List.iter (fun i ->
      if not (executable_b g !s i) then fail "the runner fired a non-executable operation";
      s := nested_fire all ng !s i;
      print_string (Printf.sprintf "step %d%s\n" i (show_vals !tensors !s.vals))) order;
  print_string ("fired" ^ String.concat "" (List.map (Printf.sprintf " %d") order) ^ "\n");
  print_string ("vals" ^ show_vals !tensors final.vals ^ "\n");
  let out = function Some v -> Printf.sprintf " %d" v | None -> " -" in
  print_string ("outs" ^ String.concat "" (List.map out (nested_outputs all ng args out_vals)) ^ "\n");
  print_string "done\n"
